package callrecord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"time"
	"unicode"
)

// Bounds of what a console accepts. A runtime never sends more; a batch
// that does is refused whole, nothing stored.
const (
	maxSubject  = 256
	maxClientID = 256
	// MaxBodyBytes bounds a batch's JSON.
	MaxBodyBytes = 256 << 10
	// maxSkew is how far in the future a record's time may lie (clocks
	// of runtime and console differ a little).
	maxSkew = 5 * time.Minute
	// maxDuration bounds a call's duration (the executor's deadline is at
	// most minutes).
	maxDuration = int64(24 * time.Hour / time.Millisecond)
)

var (
	toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	digest   = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	recordID = regexp.MustCompile(`^[0-9a-f]{32}$`)
	class    = regexp.MustCompile(`^[A-Z][A-Z_]{1,39}$`)
	kinds    = map[string]bool{"anonymous": true, "oidc": true, "token": true, "local": true}
	decision = map[string]bool{Allowed: true, DeniedExposure: true, DeniedGroup: true, DeniedCondition: true,
		AwaitingDecision: true, DeniedPerCall: true}
)

// ParseBatch reads a batch a runtime sent and checks every record: the
// schema, at most MaxBatch records, known fields only, and each record's
// values (Validate). Any error names the first bad record; nothing of a
// bad batch is to be stored.
func ParseBatch(body []byte, now time.Time) ([]Record, error) {
	var b Batch
	if err := DecodeBatch(body, MaxBodyBytes, Schema, &b); err != nil {
		return nil, err
	}
	if b.Schema != Schema {
		return nil, fmt.Errorf("unknown batch schema %q (this console reads %s)", b.Schema, Schema)
	}
	if len(b.Records) > MaxBatch {
		return nil, fmt.Errorf("the batch has %d records; at most %d are accepted", len(b.Records), MaxBatch)
	}
	for i, r := range b.Records {
		if err := r.Validate(now); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
	}
	return b.Records, nil
}

// DecodeBatch reads the JSON of a batch of schema (this package's or
// another that travels beside it, such as call summaries) into v: at most
// maxBytes, known fields only, nothing after the object.
func DecodeBatch(body []byte, maxBytes int, schema string, v any) error {
	if len(body) > maxBytes {
		return fmt.Errorf("the batch is larger than %d bytes", maxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the batch is not valid JSON of %s: %v", schema, err)
	}
	if dec.More() {
		return fmt.Errorf("the batch has data after its JSON object")
	}
	return nil
}

// Validate checks one record's values.
func (r Record) Validate(now time.Time) error {
	switch {
	case !recordID.MatchString(r.ID):
		return fmt.Errorf("id must be 32 lower-case hex digits")
	case !toolName.MatchString(r.Tool):
		return fmt.Errorf("tool %q is not a tool name", r.Tool)
	case r.DefinitionDigest != "" && !digest.MatchString(r.DefinitionDigest):
		return fmt.Errorf("definition_digest must be sha256: and 64 hex digits")
	case !digest.MatchString(r.ArgumentsDigest):
		return fmt.Errorf("arguments_digest must be sha256: and 64 hex digits")
	case !kinds[r.Principal.Kind]:
		return fmt.Errorf("principal kind %q is not one of anonymous, oidc, token, local", r.Principal.Kind)
	case !printable(r.Principal.Subject, maxSubject) || !printable(r.Principal.ClientID, maxClientID):
		return fmt.Errorf("principal subject and client id must be printable and at most %d bytes", maxSubject)
	case !decision[r.Decision]:
		return fmt.Errorf("decision %q is unknown", r.Decision)
	case !class.MatchString(r.Class):
		return fmt.Errorf("class %q is not an outcome class", r.Class)
	case !GoesWith(r.Decision, r.Class):
		return fmt.Errorf("decision %s does not go with class %s", r.Decision, r.Class)
	case r.Status < 0 || r.Status > 599 || r.Attempts < 0 || r.Attempts > 5:
		return fmt.Errorf("status must be 0..599 and attempts 0..5")
	case r.DurationMS < 0 || r.DurationMS > maxDuration:
		return fmt.Errorf("duration_ms must be 0..%d", maxDuration)
	case r.At.IsZero() || r.At.After(now.Add(maxSkew)):
		return fmt.Errorf("at must be a time no later than now")
	}
	return nil
}

func printable(s string, max int) bool {
	if len(s) > max {
		return false
	}
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return false
		}
	}
	return true
}

// IsToolName reports whether s is a tool name (the name rule of LLM
// function-calling APIs); call summaries share the record's vocabulary.
func IsToolName(s string) bool { return toolName.MatchString(s) }

// IsClass reports whether s has the shape of an outcome class.
func IsClass(s string) bool { return class.MatchString(s) }

// Printable reports whether s is printable and at most max bytes.
func Printable(s string, max int) bool { return printable(s, max) }
