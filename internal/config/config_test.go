package config

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func valid() Config {
	return Config{Addr: "127.0.0.1:8080", DataDir: "./data", SessionIdle: time.Hour, SessionMaxAge: 12 * time.Hour, LocalLogin: true}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string // substring of the error; "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"port zero", func(c *Config) { c.Addr = "127.0.0.1:0" }, ""},
		{"https base", func(c *Config) { c.BaseURL = "https://console.example.com" }, ""},
		{"no port", func(c *Config) { c.Addr = "localhost" }, "TOOLGATE_ADDR"},
		{"runtime api listener", func(c *Config) { c.RuntimeAPIAddr = "0.0.0.0:8081" }, ""},
		{"runtime api on port zero", func(c *Config) { c.Addr, c.RuntimeAPIAddr = "127.0.0.1:0", "127.0.0.1:0" }, ""},
		{"runtime api without port", func(c *Config) { c.RuntimeAPIAddr = "0.0.0.0" }, "TOOLGATE_RUNTIME_API_ADDR"},
		{"runtime api on the console's port", func(c *Config) { c.RuntimeAPIAddr = c.Addr }, "already listens"},
		{"runtime api connection limits", func(c *Config) { c.RuntimeAPIMaxConns, c.RuntimeAPIMaxConnsPerIP = 100, 10 }, ""},
		{"negative runtime api connection limit", func(c *Config) { c.RuntimeAPIMaxConnsPerIP = -1 }, "--runtime-api-max-conns-per-ip"},
		{"empty data dir", func(c *Config) { c.DataDir = " " }, "TOOLGATE_DATA_DIR"},
		{"bad base url", func(c *Config) { c.BaseURL = "ftp://x" }, "TOOLGATE_BASE_URL"},
		{"idle too short", func(c *Config) { c.SessionIdle = time.Second }, "TOOLGATE_SESSION_IDLE"},
		{"max below idle", func(c *Config) { c.SessionMaxAge = time.Minute }, "TOOLGATE_SESSION_MAX_AGE"},
		{"independence window of a day", func(c *Config) { c.ApproverIndependence = 24 * time.Hour }, ""},
		{"independence window too short", func(c *Config) { c.ApproverIndependence = time.Minute }, "TOOLGATE_APPROVER_INDEPENDENCE"},
		{"negative independence window", func(c *Config) { c.ApproverIndependence = -time.Hour }, "TOOLGATE_APPROVER_INDEPENDENCE"},
		{"webhook retry base", func(c *Config) { c.WebhookRetryBase = 200 * time.Millisecond }, ""},
		{"webhook retry base too short", func(c *Config) { c.WebhookRetryBase = 10 * time.Millisecond }, "--webhook-retry-base / TOOLGATE_WEBHOOK_RETRY_BASE 10ms: want 100ms to 1h"},
		{"negative webhook retry base", func(c *Config) { c.WebhookRetryBase = -time.Second }, "TOOLGATE_WEBHOOK_RETRY_BASE"},
		{"webhook retry base too long", func(c *Config) { c.WebhookRetryBase = 2 * time.Hour }, "TOOLGATE_WEBHOOK_RETRY_BASE 2h0m0s"},
		{"postgres database", func(c *Config) { c.DatabaseURL = "postgres://tg:pw@db.internal:5432/toolgate" }, ""},
		{"postgresql database", func(c *Config) { c.DatabaseURL = "PostgreSQL://db.internal/toolgate" }, ""},
		{"other database", func(c *Config) { c.DatabaseURL = "mysql://tg:pw@db.internal/toolgate" }, "TOOLGATE_DATABASE_URL"},
		{"oidc", func(c *Config) { *c = withOIDC(*c) }, ""},
		{"oidc, no local login", func(c *Config) { *c = withOIDC(*c); c.LocalLogin = false }, ""},
		{"no local login without oidc", func(c *Config) { c.LocalLogin = false }, "--oidc-issuer"},
		{"oidc over http elsewhere", func(c *Config) { *c = withOIDC(*c); c.OIDC.Issuer = "http://idp.example" }, "TOOLGATE_OIDC_ISSUER"},
		{"oidc over http on loopback", func(c *Config) { *c = withOIDC(*c); c.OIDC.Issuer = "http://127.0.0.1:9000" }, ""},
		{"oidc without client", func(c *Config) { *c = withOIDC(*c); c.OIDC.ClientID = "" }, "TOOLGATE_OIDC_CLIENT_ID"},
		{"oidc without secret file", func(c *Config) { *c = withOIDC(*c); c.OIDC.ClientSecretFile = "" }, "TOOLGATE_OIDC_CLIENT_SECRET_FILE"},
		{"oidc without groups", func(c *Config) { *c = withOIDC(*c); c.OIDC.AdminGroups = nil }, "no group would give a role"},
		{"oidc bad redirect", func(c *Config) { *c = withOIDC(*c); c.OIDC.RedirectURL = "ftp:x" }, "TOOLGATE_OIDC_REDIRECT_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.change(&c)
			err := c.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want it to mention %s", err, tt.want)
			}
		})
	}
}

func withOIDC(c Config) Config {
	c.OIDC = OIDC{Issuer: "https://idp.example", ClientID: "toolgate", ClientSecretFile: "/run/secret", AdminGroups: []string{"a"}}
	return c
}

func TestClientSecretFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, want, err string }{
		{"s3cret\n", "s3cret", ""},
		{"  s3cret  \nsecond line\n", "s3cret", ""},
		{"\n", "", "first line is empty"},
	} {
		f := filepath.Join(dir, "secret")
		if err := os.WriteFile(f, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := OIDC{ClientSecretFile: f}.ClientSecret()
		if got != tc.want || (tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err))) {
			t.Errorf("%q: %q, %v", tc.content, got, err)
		}
	}
	if _, err := (OIDC{ClientSecretFile: filepath.Join(dir, "missing")}).ClientSecret(); err == nil {
		t.Error("a missing file is not an error")
	}
}

func TestDerived(t *testing.T) {
	c := valid().WithListenAddr(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4321})
	if c.BaseURL != "http://127.0.0.1:4321" || c.SecureCookies() {
		t.Errorf("BaseURL %q secure=%v", c.BaseURL, c.SecureCookies())
	}
	c = valid()
	c.BaseURL = "https://x.example/"
	if c = c.WithListenAddr(&net.TCPAddr{}); c.BaseURL != "https://x.example" || !c.SecureCookies() {
		t.Errorf("BaseURL %q secure=%v", c.BaseURL, c.SecureCookies())
	}
	for base, secure := range map[string]bool{"HTTPS://X.example": true, "Https://x.example": true, "http://x.example": false, "https:": false} {
		c.BaseURL = base
		if c.SecureCookies() != secure {
			t.Errorf("BaseURL %q: secure=%v, want %v", base, c.SecureCookies(), secure)
		}
	}
	if !strings.HasSuffix(c.DBPath(), "toolgate.db") {
		t.Errorf("DBPath = %s", c.DBPath())
	}
}
