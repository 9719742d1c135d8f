package web

import (
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/openapi"
)

// pendingImports keeps re-import uploads between the diff preview and
// "Apply", keyed by source and upload digest, so Apply applies exactly the
// document that was previewed without uploading it again. It is bounded
// (a few documents, half an hour); an expired preview just asks for the
// upload again. The zero value is ready to use.
type pendingImports struct {
	mu      sync.Mutex
	entries []pendingImport
}

type pendingImport struct {
	source, digest, origin string
	doc                    *openapi.Document
	at                     time.Time
}

const (
	maxPendingImports = 4
	pendingImportTTL  = 30 * time.Minute
)

func (p *pendingImports) put(e pendingImport) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire(e.at)
	kept := p.entries[:0]
	for _, x := range p.entries {
		if x.source != e.source || x.digest != e.digest {
			kept = append(kept, x)
		}
	}
	p.entries = append(kept, e)
	if len(p.entries) > maxPendingImports {
		p.entries = p.entries[len(p.entries)-maxPendingImports:]
	}
}

// take removes and returns the pending upload, or false.
func (p *pendingImports) take(source, digest string, now time.Time) (pendingImport, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire(now)
	for i, x := range p.entries {
		if x.source == source && x.digest == digest {
			p.entries = append(p.entries[:i], p.entries[i+1:]...)
			return x, true
		}
	}
	return pendingImport{}, false
}

func (p *pendingImports) expire(now time.Time) {
	kept := p.entries[:0]
	for _, x := range p.entries {
		if now.Sub(x.at) < pendingImportTTL {
			kept = append(kept, x)
		}
	}
	p.entries = kept
}
