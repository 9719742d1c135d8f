package bundle

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

func TestBuild(t *testing.T) {
	b := mustBuild(t, smallInput())
	if b.Schema != SchemaV1 || b.Version != 7 {
		t.Errorf("schema %q version %d", b.Schema, b.Version)
	}
	if want := issued.Add(time.Second); !b.IssuedAt.Equal(want) || b.IssuedAt.Location() != time.UTC {
		t.Errorf("issued_at %s, want %s in UTC", b.IssuedAt, want)
	}
	if want := b.IssuedAt.Add(DefaultTTL); !b.ExpiresAt.Equal(want) {
		t.Errorf("expires_at %s, want %s (default TTL)", b.ExpiresAt, want)
	}
	var names []string
	for _, tool := range b.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "getOrder,placeOrder" {
		t.Errorf("tools %s: want only the exposed ones, sorted", got)
	}
	if len(b.Sources) != 1 || b.Sources[0].Name != "shop" {
		t.Errorf("sources %+v: want only the one exposed tools use", b.Sources)
	}
	post := b.Tools[1]
	if post.Method != "POST" || post.Policy.Retry.Attempts != 1 {
		t.Errorf("placeOrder: method %s attempts %d; want POST with the effective 1 attempt (R1)", post.Method, post.Policy.Retry.Attempts)
	}
	if post.Policy.TimeoutMS != policy.DefaultTimeoutMS || len(post.Policy.Retry.RetryOn) == 0 {
		t.Errorf("placeOrder policy %+v: defaults not filled", post.Policy)
	}
}

func TestBuildTTL(t *testing.T) {
	in := smallInput()
	in.TTL = 36 * time.Hour
	b := mustBuild(t, in)
	if got := b.ExpiresAt.Sub(b.IssuedAt); got != 36*time.Hour {
		t.Errorf("validity %s, want 36h", got)
	}
	in.TTL = -time.Hour
	if _, err := Build(in); err == nil {
		t.Error("negative TTL accepted")
	}
}

func TestBuildRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(in *BuildInput)
		want   string
	}{
		{"tool name with a space", func(in *BuildInput) { in.Tools[0].Name = "place order" }, "name must match"},
		{"tool name of 65 characters", func(in *BuildInput) { in.Tools[0].Name = strings.Repeat("a", 65) }, "name must match"},
		{"duplicate tool", func(in *BuildInput) { in.Tools[0].Name = "getOrder" }, "appears twice"},
		{"missing source", func(in *BuildInput) { in.Tools[0].Source = "nowhere" }, `source "nowhere" is not in the bundle`},
		{"origin with userinfo", func(in *BuildInput) { in.Sources[0].Origin = "https://user:pw@shop.example.com" }, "user name or password"},
		{"origin with a path", func(in *BuildInput) { in.Sources[0].Origin = "https://shop.example.com/api" }, "no path"},
		{"origin with a trailing slash", func(in *BuildInput) { in.Sources[0].Origin = "https://shop.example.com/" }, "no path"},
		{"origin with a query", func(in *BuildInput) { in.Sources[0].Origin = "https://shop.example.com?x=1" }, "no path"},
		{"ftp origin", func(in *BuildInput) { in.Sources[0].Origin = "ftp://shop.example.com" }, "http or https"},
		{"origin without host", func(in *BuildInput) { in.Sources[0].Origin = "https://" }, "no host"},
		{"base path with trailing slash", func(in *BuildInput) { in.Sources[0].BasePath = "/v2/" }, "base_path"},
		{"unknown method", func(in *BuildInput) { in.Tools[0].Method = "BREW" }, "method"},
		{"relative path", func(in *BuildInput) { in.Tools[0].Path = "orders" }, "must start with /"},
		{"input schema not an object", func(in *BuildInput) { in.Tools[0].InputSchema = json.RawMessage(`[]`) }, "input_schema"},
		{"no risk class", func(in *BuildInput) { in.Tools[0].Assessment.Class = 0 }, "risk class"},
		{"bad param location", func(in *BuildInput) { in.Tools[1].Params[0].In = "body" }, "param"},
		{"destructive tool exposed without approval", func(in *BuildInput) { in.Tools[2].Policy.Exposed = true }, "without an approval"},
		{"version 0", func(in *BuildInput) { in.Version = 0 }, "version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := smallInput()
			tc.change(&in)
			_, err := Build(in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Build error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestValidateOrigin(t *testing.T) {
	for _, ok := range []string{"https://api.example.com", "http://localhost:8080", "https://[::1]:8443", "https://10.0.0.1"} {
		if err := ValidateOrigin(ok); err != nil {
			t.Errorf("ValidateOrigin(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"api.example.com", "https://api.example.com#x", "HTTPS://api.example.com", "https://api.example.com:8080/", "//api.example.com"} {
		if err := ValidateOrigin(bad); err == nil {
			t.Errorf("ValidateOrigin(%q) accepted", bad)
		}
	}
}

func TestDeriveAnnotations(t *testing.T) {
	key := &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated}
	tests := []struct {
		method string
		class  risk.Class
		p      policy.Policy
		want   Annotations
	}{
		{"GET", risk.Read, policy.Policy{}, Annotations{ReadOnlyHint: true, IdempotentHint: true}},
		{"HEAD", risk.Read, policy.Policy{}, Annotations{ReadOnlyHint: true, IdempotentHint: true}},
		{"POST", risk.Read, policy.Policy{}, Annotations{ReadOnlyHint: true}},
		{"POST", risk.Write, policy.Policy{}, Annotations{}},
		{"POST", risk.Write, policy.Policy{Idempotent: true}, Annotations{IdempotentHint: true}},
		{"POST", risk.Write, policy.Policy{IdempotencyKey: key}, Annotations{IdempotentHint: true}},
		{"PUT", risk.Write, policy.Policy{}, Annotations{IdempotentHint: true}},
		{"DELETE", risk.Destructive, policy.Policy{}, Annotations{DestructiveHint: true}},
		{"POST", risk.Privileged, policy.Policy{}, Annotations{DestructiveHint: true}},
		{"patch", risk.Write, policy.Policy{}, Annotations{}},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.class.String(), func(t *testing.T) {
			if got := DeriveAnnotations(tc.method, tc.class, tc.p); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
