package agentauth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgate/toolgate/internal/principal"
)

const goodHash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParseTokensRefusals(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"not JSON", "{", "line 1:"},
		{"unknown field", `{"name":"a","sha256":"` + goodHash + `","token":"x"}`, `line 1: json: unknown field "token"`},
		{"no name", `{"sha256":"` + goodHash + `"}`, `line 1: name ""`},
		{"name with space", `{"name":"a b","sha256":"` + goodHash + `"}`, `line 1: name "a b"`},
		{"bad hash", `{"name":"a","sha256":"abc"}`, "line 1: sha256 of \"a\""},
		{"upper-case hash", `{"name":"a","sha256":"` + strings.ToUpper(goodHash) + `"}`, "line 1: sha256 of \"a\""},
		{"empty group", `{"name":"a","groups":[""],"sha256":"` + goodHash + `"}`, `line 1: group ""`},
		{"duplicate name", `{"name":"a","sha256":"` + goodHash + `"}` + "\n\n" + `{"name":"a","sha256":"` + strings.Repeat("1", 64) + `"}`,
			`line 3: name "a" is already on line 1`},
		{"duplicate hash", `{"name":"a","sha256":"` + goodHash + `"}` + "\n" + `{"name":"b","sha256":"` + goodHash + `"}`,
			"line 2: the same token hash is already on line 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTokens([]byte(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseTokens = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestAddTokenAndVerify: the token printed once is what the file admits,
// as its entry's principal; the file holds only its hash; a second token
// of the same name is refused and leaves the file as it was.
func TestAddTokenAndVerify(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents.jsonl")
	tok, err := AddToken(path, "ci-bot", []string{"ops", "deploy"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.HasPrefix(tok, TokenPrefix) || len(tok) != len(TokenPrefix)+43 || strings.Contains(string(raw), tok[len(TokenPrefix):]) {
		t.Fatalf("token %q / file %s: want a prefixed 256-bit token stored only as a hash", tok, raw)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := AddToken(path, "ci-bot", nil, time.Now()); err == nil || !strings.Contains(err.Error(), `already has a token named "ci-bot"`) {
		t.Errorf("second ci-bot: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(raw) {
		t.Error("a refused add changed the file")
	}
	f, err := OpenTokenFile(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.verify(tok, []string{"s"})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if p := principal.FromTokenInfo(info); p.Kind != principal.Token || p.Subject != "ci-bot" || strings.Join(p.Groups, ",") != "deploy,ops" {
		t.Errorf("principal = %+v", p)
	}
	if _, err := f.verify(tok+"x", nil); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("unknown token: %v, want ErrInvalidToken", err)
	}
}

// TestTokenFileReload: a token added while the runtime runs is admitted
// once the file's change is seen; a broken file keeps the tokens read
// before.
func TestTokenFileReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents.jsonl")
	first, err := AddToken(path, "a", nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	f, err := OpenTokenFile(path, nil, clock)
	if err != nil {
		t.Fatal(err)
	}
	second, err := AddToken(path, "b", nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.verify(second, nil); err == nil {
		t.Error("the new token was admitted before the file was looked at again")
	}
	now.Add(int64(2 * reloadCheck))
	if _, err := f.verify(second, nil); err != nil {
		t.Errorf("the new token after the reload: %v", err)
	}
	if err := os.WriteFile(path, []byte("{broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	now.Add(int64(2 * reloadCheck))
	if _, err := f.verify(first, nil); err != nil || f.Len() != 2 {
		t.Errorf("after a broken edit: %v, %d tokens; want the two read before", err, f.Len())
	}
}

// TestCache: a verified token is not verified again until min(exp, TTL);
// a refused one is never cached.
func TestCache(t *testing.T) {
	var now atomic.Int64
	start := time.Now()
	now.Store(start.UnixNano())
	c := newCache(time.Minute, func() time.Time { return time.Unix(0, now.Load()) })
	calls := 0
	exp := start.Add(90 * time.Second)
	verify := func(tok string) (*auth.TokenInfo, error) {
		calls++
		if tok == "bad" {
			return nil, auth.ErrInvalidToken
		}
		if tok == "short" {
			return &auth.TokenInfo{Expiration: time.Unix(0, now.Load()).Add(10 * time.Second)}, nil
		}
		return &auth.TokenInfo{Expiration: exp}, nil
	}
	for _, step := range []struct {
		advance   time.Duration
		tok       string
		wantCalls int
	}{
		{0, "good", 1}, {30 * time.Second, "good", 1}, {31 * time.Second, "good", 2}, // TTL from the first verification
		{0, "bad", 3}, {0, "bad", 4},
		{0, "short", 5}, {5 * time.Second, "short", 5}, {6 * time.Second, "short", 6}, // exp before TTL
	} {
		now.Add(int64(step.advance))
		_, _ = c.get(step.tok, verify)
		if calls != step.wantCalls {
			t.Fatalf("after %s at +%s: %d verifications, want %d", step.tok, time.Unix(0, now.Load()).Sub(start), calls, step.wantCalls)
		}
	}
}
