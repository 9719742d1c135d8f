package runtimeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/policy"
)

var (
	toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	digestPattern   = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	principalKinds  = []string{"anonymous", "oidc", "token", "local"}
)

// Bounds of a call request's text members.
const (
	maxSubject  = 256
	maxGroups   = 64
	maxInstance = 128
)

// strictJSON decodes body into v: one JSON value, no unknown member.
func strictJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the body is not a JSON object of the contract: %v", err)
	}
	if dec.More() {
		return errors.New("the body has data after its JSON object")
	}
	return nil
}

// parseCallRequest reads a callgate.Request and checks every member.
func parseCallRequest(body []byte) (*callgate.Request, error) {
	var r callgate.Request
	if err := strictJSON(body, &r); err != nil {
		return nil, err
	}
	args, err := json.Marshal(r.Arguments)
	if err != nil {
		return nil, fmt.Errorf("arguments: %v", err)
	}
	p := r.Principal
	switch {
	case r.Schema != callgate.RequestSchema:
		return nil, fmt.Errorf("schema %q, want %q", r.Schema, callgate.RequestSchema)
	case !toolNamePattern.MatchString(r.Tool):
		return nil, fmt.Errorf("tool %q is not a tool name", r.Tool)
	case !digestPattern.MatchString(r.DefinitionDigest) || !digestPattern.MatchString(r.ArgumentsDigest):
		return nil, errors.New("definition_digest and arguments_digest must be sha256: and 64 lower-case hex digits")
	case r.Arguments == nil:
		return nil, errors.New("arguments must be a JSON object (secrets masked)")
	case len(args) > callgate.MaxArgumentsBytes:
		return nil, fmt.Errorf("arguments are %d bytes as JSON, at most %d", len(args), callgate.MaxArgumentsBytes)
	case r.Mode != policy.PerCallConfirm && r.Mode != policy.PerCallApprove:
		return nil, fmt.Errorf("mode %q, want %q or %q", r.Mode, policy.PerCallConfirm, policy.PerCallApprove)
	case r.Confirmed && r.Mode != policy.PerCallConfirm:
		return nil, errors.New("confirmed is only for mode confirm: an approve-mode call is decided by an approver")
	case !printableUpTo(r.Reason, policy.MaxConditionMessage):
		return nil, fmt.Errorf("reason must be printable and at most %d characters", policy.MaxConditionMessage)
	case !slices.Contains(principalKinds, p.Kind):
		return nil, fmt.Errorf("principal kind %q is not one of anonymous, oidc, token, local", p.Kind)
	case !printableUpTo(p.Subject, maxSubject) || !printableUpTo(p.ClientID, maxSubject):
		return nil, fmt.Errorf("principal subject and client_id must be printable and at most %d characters", maxSubject)
	case len(p.Groups) > maxGroups || slices.ContainsFunc(p.Groups, func(g string) bool { return g == "" || !printableUpTo(g, maxSubject) }):
		return nil, fmt.Errorf("principal groups: at most %d, each printable, 1 to %d characters", maxGroups, maxSubject)
	case r.BundleVersion < 1:
		return nil, fmt.Errorf("bundle_version %d, want 1 or more", r.BundleVersion)
	case r.Instance == "" || !printableUpTo(r.Instance, maxInstance):
		return nil, fmt.Errorf("instance must be printable, 1 to %d characters", maxInstance)
	}
	return &r, nil
}

// printableUpTo: printable (fleet.go) and at most max characters.
func printableUpTo(s string, max int) bool {
	return utf8.RuneCountInString(s) <= max && printable(s)
}

// parseConsume reads a callgate.Consume.
func parseConsume(body []byte) (*callgate.Consume, error) {
	var in callgate.Consume
	if err := strictJSON(body, &in); err != nil {
		return nil, err
	}
	if in.Grant == "" {
		return nil, errors.New("grant is required")
	}
	if in.Instance == "" || !printableUpTo(in.Instance, maxInstance) {
		return nil, fmt.Errorf("instance must be printable, 1 to %d characters", maxInstance)
	}
	return &in, nil
}

// callTool is the tool a request names, as the bundle version it names
// has it: refused (400) unless it is there with that definition digest
// and its policy or a condition can ask for the request's mode.
func (s *Service) callTool(ctx context.Context, r *callgate.Request) (*bundle.Tool, error) {
	tools, err := s.bundleTools.get(ctx, s, r.BundleVersion)
	if err != nil {
		return nil, err
	}
	t, ok := tools[r.Tool]
	switch {
	case !ok:
		return nil, apperr.Invalidf("Call request refused: bundle version %d has no tool %s.", r.BundleVersion, r.Tool)
	case t.Digest != r.DefinitionDigest:
		return nil, apperr.Invalidf("Call request refused: tool %s of bundle version %d has another definition digest.", r.Tool, r.BundleVersion)
	}
	if err := approval.CallModeAsked(t.Policy, r.Mode); err != nil {
		return nil, apperr.Invalidf("Call request refused: tool %s of bundle version %d: %v.", r.Tool, r.BundleVersion, err)
	}
	return t, nil
}

// toolsCache keeps the tools of the bundle versions call requests named
// last: published versions never change, so an entry is never stale.
type toolsCache struct {
	mu       sync.Mutex
	versions map[int64]map[string]*bundle.Tool
}

const toolsCacheSize = 8

func (c *toolsCache) get(ctx context.Context, s *Service, version int64) (map[string]*bundle.Tool, error) {
	c.mu.Lock()
	tools, ok := c.versions[version]
	c.mu.Unlock()
	if ok {
		return tools, nil
	}
	rec, err := s.db.BundleByVersion(ctx, version)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, apperr.Invalidf("Call request refused: this console has no bundle version %d.", version)
	}
	if err != nil {
		return nil, err
	}
	b, err := rec.Bundle()
	if err != nil {
		return nil, err
	}
	tools = make(map[string]*bundle.Tool, len(b.Tools))
	for i := range b.Tools {
		tools[b.Tools[i].Name] = &b.Tools[i]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.versions == nil || len(c.versions) >= toolsCacheSize {
		c.versions = map[int64]map[string]*bundle.Tool{}
	}
	c.versions[version] = tools
	return tools, nil
}
