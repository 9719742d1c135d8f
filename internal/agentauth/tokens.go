package agentauth

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode"
)

// TokenPrefix starts every agent token, so the endpoint tells one from a
// JWT without trying both (and a leaked one is easy to search for).
const TokenPrefix = "tga_"

// maxTokenLen bounds what is hashed: longer input is no agent token.
const maxTokenLen = 200

// TokenEntry is one line of an agent-token file: who the token is for and
// the SHA-256 (hex) of the token, never the token.
type TokenEntry struct {
	Name    string    `json:"name"`
	Groups  []string  `json:"groups,omitempty"`
	SHA256  string    `json:"sha256"`
	Created time.Time `json:"created,omitzero"`
}

// hashToken is how an agent token is stored and looked up.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ParseTokens reads an agent-token file: one JSON object per line, blank
// lines skipped. Names and hashes are unique; every error names its line.
func ParseTokens(data []byte) ([]TokenEntry, error) {
	var out []TokenEntry
	names, hashes := map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e TokenEntry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if m, dup := names[e.Name]; dup {
			return nil, fmt.Errorf("line %d: name %q is already on line %d", n, e.Name, m)
		}
		if m, dup := hashes[e.SHA256]; dup {
			return nil, fmt.Errorf("line %d: the same token hash is already on line %d", n, m)
		}
		names[e.Name], hashes[e.SHA256] = n, n
		out = append(out, e)
	}
	return out, sc.Err()
}

func (e TokenEntry) check() error {
	if err := checkWord("name", e.Name); err != nil {
		return err
	}
	for _, g := range e.Groups {
		if err := checkWord("group", g); err != nil {
			return err
		}
	}
	if b, err := hex.DecodeString(e.SHA256); err != nil || len(b) != sha256.Size || strings.ToLower(e.SHA256) != e.SHA256 {
		return fmt.Errorf("sha256 of %q is not 64 lower-case hex digits", e.Name)
	}
	return nil
}

// checkWord accepts 1..128 printable characters without spaces (names and
// groups are matched exactly and shown in logs).
func checkWord(what, s string) error {
	if s == "" || len(s) > 128 || strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("%s %q: want 1 to 128 printable characters without spaces", what, s)
	}
	return nil
}

// NewToken makes a token for name and groups: TokenPrefix and 32 random
// bytes (base64url), with the entry that stores its hash.
func NewToken(name string, groups []string, now time.Time) (string, TokenEntry, error) {
	e := TokenEntry{Name: name, Groups: groups, Created: now.UTC().Truncate(time.Second)}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", e, err
	}
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	e.SHA256 = hashToken(token)
	return token, e, e.check()
}

// AddToken appends a new entry for name to the agent-token file at path
// (created with mode 0600 when missing) and returns the token, which is
// not stored anywhere. A name already in the file, or a file that does not
// parse, is refused and leaves the file as it was.
func AddToken(path, name string, groups []string, now time.Time) (string, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	entries, err := ParseTokens(old)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	for _, e := range entries {
		if e.Name == name {
			return "", fmt.Errorf("%s already has a token named %q (remove its line to replace it)", path, name)
		}
	}
	token, e, err := NewToken(name, groups, now)
	if err != nil {
		return "", err
	}
	line, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		line = append([]byte{'\n'}, line...)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		_ = f.Close()
		return "", err
	}
	return token, f.Close()
}
