package agentauth

import (
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgate/toolgate/internal/principal"
)

// reloadCheck is how often a TokenFile looks at its file's modification
// time and size.
const reloadCheck = time.Second

// TokenFile is an agent-token file as the endpoint checks tokens against
// it, read again when the file changes.
type TokenFile struct {
	path string
	log  *slog.Logger
	now  func() time.Time

	mu      sync.Mutex
	byHash  map[string]TokenEntry
	modTime time.Time
	size    int64
	checked time.Time
}

// OpenTokenFile reads the agent-token file at path; it must exist and
// parse (an empty file admits nobody). logger receives reload errors.
func OpenTokenFile(path string, logger *slog.Logger, now func() time.Time) (*TokenFile, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	f := &TokenFile{path: path, log: logger, now: now}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("agent tokens: %w", err)
	}
	if err := f.load(fi); err != nil {
		return nil, fmt.Errorf("agent tokens: %s: %w", path, err)
	}
	f.checked = now()
	return f, nil
}

// Len is the number of tokens the file holds now.
func (f *TokenFile) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.byHash)
}

// load reads the file whose stat is fi; f.mu is held (or f unshared).
func (f *TokenFile) load(fi os.FileInfo) error {
	data, err := os.ReadFile(f.path)
	if err != nil {
		return err
	}
	entries, err := ParseTokens(data)
	if err != nil {
		return err
	}
	f.byHash = make(map[string]TokenEntry, len(entries))
	for _, e := range entries {
		f.byHash[e.SHA256] = e
	}
	f.modTime, f.size = fi.ModTime(), fi.Size()
	return nil
}

// refresh reloads the file when its modification time or size changed
// since the last look (at most once per reloadCheck); f.mu is held. A file
// that went missing or no longer parses keeps the entries read before.
func (f *TokenFile) refresh() {
	now := f.now()
	if now.Sub(f.checked) < reloadCheck {
		return
	}
	f.checked = now
	fi, err := os.Stat(f.path)
	if err != nil {
		f.log.Error("agent-token file unreadable; keeping the tokens read before", "file", f.path, "err", err)
		return
	}
	if fi.ModTime().Equal(f.modTime) && fi.Size() == f.size {
		return
	}
	if err := f.load(fi); err != nil {
		f.log.Error("agent-token file changed but does not parse; keeping the tokens read before", "file", f.path, "err", err)
		return
	}
	f.log.Info("agent-token file reloaded", "file", f.path, "tokens", len(f.byHash))
}

// verify looks token up; scopes are what the endpoint requires, which an
// entry of the file grants (the file names exactly the agents allowed).
func (f *TokenFile) verify(token string, scopes []string) (*auth.TokenInfo, error) {
	if len(token) > maxTokenLen {
		return nil, fmt.Errorf("%w: unknown agent token", auth.ErrInvalidToken)
	}
	h := hashToken(token)
	f.mu.Lock()
	f.refresh()
	e, ok := f.byHash[h]
	f.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: unknown agent token", auth.ErrInvalidToken)
	}
	p := principal.New(principal.Token, e.Name, "", e.Groups)
	return p.TokenInfo(&auth.TokenInfo{Scopes: scopes}), nil
}
