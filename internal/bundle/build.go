package bundle

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// DefaultTTL is how long a bundle is valid when BuildInput.TTL is zero.
const DefaultTTL = 30 * 24 * time.Hour

// BuildInput is everything a bundle is made from, as plain values: the
// console reads them from the store, tests write them by hand.
type BuildInput struct {
	Version int64
	Now     time.Time     // becomes issued_at
	TTL     time.Duration // expires_at = Now + TTL; 0 means DefaultTTL
	Sources []Source
	// Tools lists every tool of the project; only exposed ones are kept.
	Tools []ToolInput
}

// ToolInput is one tool as stored: the STORED policy (Build applies
// policy.Effective) and the risk assessment.
type ToolInput struct {
	Name        string
	Source      string
	Method      string
	Path        string
	Description string
	Params      []Param
	Body        *Body
	InputSchema json.RawMessage
	Assessment  risk.Assessment
	Policy      policy.Policy
	Approvals   []Approval
}

// Build makes the bundle runtimes receive: the exposed tools with their
// effective policies and derived annotations, sources and tools sorted, times
// normalized, everything validated. Sources no exposed tool uses are left
// out, so a bundle never names an API it cannot call.
func Build(in BuildInput) (*Bundle, error) {
	ttl := in.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if ttl < 0 {
		return nil, fmt.Errorf("build bundle: ttl %s is negative", ttl)
	}
	issued := wholeSecondUTC(in.Now)
	b := &Bundle{
		Version:   in.Version,
		IssuedAt:  issued,
		ExpiresAt: issued.Add(ttl.Truncate(time.Second)),
		Tools:     []Tool{},
	}
	used := map[string]bool{}
	byName := map[string]Source{}
	for _, s := range in.Sources {
		byName[s.Name] = s
	}
	for _, t := range in.Tools {
		if !t.Policy.Exposed {
			continue
		}
		// R10's last gate: whatever the console did, a bundle never
		// carries a dangerous tool nobody approved.
		if t.Assessment.Class >= risk.Destructive && len(t.Approvals) == 0 {
			return nil, fmt.Errorf("build bundle: tool %q is %s and exposed without an approval (R10)", t.Name, t.Assessment.Class)
		}
		// A tool whose source is missing keeps no digest; Validate below
		// refuses it for the missing source.
		bt := buildTool(t)
		if src, ok := byName[t.Source]; ok {
			var err error
			if bt, err = BuildTool(t, src); err != nil {
				return nil, fmt.Errorf("build bundle: %w", err)
			}
		}
		b.Tools = append(b.Tools, bt)
		used[t.Source] = true
	}
	b.Sources = []Source{}
	for _, s := range in.Sources {
		if used[s.Name] {
			b.Sources = append(b.Sources, s)
		}
	}
	b.Schema = schemaFor(b.Tools)
	b = normalize(b)
	// A tool whose source is missing from the input is caught here.
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("build bundle: %w", err)
	}
	return b, nil
}

func buildTool(t ToolInput) Tool {
	method := strings.ToUpper(strings.TrimSpace(t.Method))
	eff := policy.Effective(method, t.Policy)
	eff.Groups = canonicalGroups(eff.Groups)
	eff.Conditions = slices.Clone(eff.Conditions)
	if len(eff.Conditions) == 0 {
		eff.Conditions = nil
	}
	return Tool{
		Name:        t.Name,
		Source:      t.Source,
		Method:      method,
		Path:        t.Path,
		Description: t.Description,
		Params:      slices.Clone(t.Params),
		Body:        cloneBody(t.Body),
		InputSchema: t.InputSchema,
		Risk:        t.Assessment.Class,
		Reasons:     slices.Clone(t.Assessment.Reasons),
		Annotations: DeriveAnnotations(method, t.Assessment.Class, eff),
		Policy:      eff,
		Approvals:   slices.Clone(t.Approvals),
	}
}

// DeriveAnnotations computes the MCP hints of a tool from its risk class and
// effective policy:
//   - readOnlyHint: the class is READ;
//   - destructiveHint: the class is DESTRUCTIVE or PRIVILEGED;
//   - idempotentHint: repeating the call has no further effect — the method
//     is GET, HEAD, OPTIONS or PUT (RFC 9110 semantics), or the admin
//     asserted idempotency, or an idempotency key is sent. DELETE is left
//     out on purpose: its repeat answers 404, which an agent reads as a
//     failure worth acting on, so it should not be invited to repeat it.
func DeriveAnnotations(method string, class risk.Class, effective policy.Policy) Annotations {
	idempotent := effective.Idempotent || effective.IdempotencyKey != nil
	switch strings.ToUpper(method) {
	case "GET", "HEAD", "OPTIONS", "PUT":
		idempotent = true
	}
	return Annotations{
		ReadOnlyHint:    class == risk.Read,
		DestructiveHint: class >= risk.Destructive,
		IdempotentHint:  idempotent,
	}
}

func cloneBody(b *Body) *Body {
	if b == nil {
		return nil
	}
	c := *b
	return &c
}
