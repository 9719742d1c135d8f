//go:build !runtimeonly

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// inspectCmd parses an API description and classifies every operation
// without touching a database: the quickest way to see what importing a
// document would do, and a stable JSON interface for other programs.
type inspectCmd struct {
	Path     string `arg:"" help:"OpenAPI 2.0/3.0/3.1 file (JSON or YAML), or a directory holding a multi-file set."`
	JSON     bool   `name:"json" help:"Print exactly one JSON object instead of a table."`
	Root     string `help:"Root document of a directory set, relative to it, when several files could be the root."`
	MaxBytes int64  `name:"max-bytes" help:"Refuse input larger than this many bytes (default 25 MiB)."`
}

// InspectReport is what `toolgate inspect --json` prints.
type InspectReport struct {
	Source     InspectSource      `json:"source"`
	Operations []InspectOperation `json:"operations"`
	Skipped    []openapi.Skipped  `json:"skipped"`
	Warnings   []string           `json:"warnings"`
	// Counts has one entry per risk class, zero included.
	Counts map[string]int `json:"counts"`
}

// InspectSource identifies the inspected document.
type InspectSource struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	SpecVersion string `json:"spec_version"`
	Origin      string `json:"origin"`
}

// InspectOperation is one operation with its risk class, the reasons for
// it and the default policy an import would give it.
type InspectOperation struct {
	Tool        string        `json:"tool"`
	Method      string        `json:"method"`
	Path        string        `json:"path"`
	PathKey     string        `json:"path_key"`
	OperationID string        `json:"operation_id"`
	Summary     string        `json:"summary"`
	Risk        risk.Class    `json:"risk"`
	Reasons     []risk.Reason `json:"reasons"`
	// IdempotencyKeyHeader is null when the operation declares none.
	IdempotencyKeyHeader *string         `json:"idempotency_key_header"`
	InputSchema          json.RawMessage `json:"input_schema"`
	// SchemaGaps names the parts of InputSchema the import could not
	// expand (they accept any value); omitted when there are none.
	SchemaGaps           []string      `json:"schema_gaps,omitempty"`
	DefaultPolicy        policy.Policy `json:"default_policy"`
	DefaultPolicySummary string        `json:"default_policy_summary"`
}

// Inspect loads the document at path and classifies every operation. It is
// the whole `inspect` pipeline without output, so the benchmark measures
// exactly what the command does.
func Inspect(path string, opts openapi.Options) (*InspectReport, error) {
	doc, err := openapi.LoadPath(path, opts)
	if err != nil {
		return nil, err
	}
	defaults := policy.BuiltinDefaults()
	rep := &InspectReport{
		Source:     InspectSource{Title: doc.Title, Version: doc.Version, SpecVersion: doc.SpecVersion, Origin: doc.Origin},
		Operations: make([]InspectOperation, 0, len(doc.Operations)),
		Skipped:    nonNil(doc.Skipped),
		Warnings:   nonNil(doc.Warnings),
		Counts:     map[string]int{},
	}
	for _, c := range risk.Classes {
		rep.Counts[c.String()] = 0
	}
	for i := range doc.Operations {
		op := &doc.Operations[i]
		a := risk.Classify(op)
		p := policy.NewToolPolicy(op.Method, a.Class, defaults)
		out := InspectOperation{
			Tool: op.Tool, Method: op.Method, Path: op.Path, PathKey: op.PathKey, OperationID: op.OperationID,
			Summary: op.Summary, Risk: a.Class, Reasons: a.Reasons, InputSchema: op.InputSchema, SchemaGaps: op.SchemaGaps,
			DefaultPolicy: p, DefaultPolicySummary: policy.Describe(op.Method, p),
		}
		if op.IdempotencyKeyHeader != "" {
			out.IdempotencyKeyHeader = &op.IdempotencyKeyHeader
		}
		if len(out.InputSchema) == 0 {
			out.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		rep.Operations = append(rep.Operations, out)
		rep.Counts[a.Class.String()]++
	}
	return rep, nil
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// Run prints the report as JSON or as a table. Bad input is exit status 1
// with one line naming the problem.
func (c *inspectCmd) Run(_ context.Context, env *Env) error {
	rep, err := Inspect(c.Path, openapi.Options{MaxBytes: c.MaxBytes, Root: c.Root})
	if err != nil {
		return Exit(1, oneLineError{fmt.Errorf("inspect %s: %w", c.Path, err)})
	}
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("inspect: writing JSON: %w", err)
		}
		return nil
	}
	if err := writeInspectTable(env.Stdout, rep); err != nil {
		return fmt.Errorf("inspect: writing table: %w", err)
	}
	return nil
}

// writeInspectTable prints an aligned table and the counts by class. Text
// from the document goes through printable so a summary cannot send
// terminal escape sequences.
func writeInspectTable(w io.Writer, rep *InspectReport) error {
	s := rep.Source
	fmt.Fprintf(w, "%s %s (OpenAPI %s) %s\n\n", printable(s.Title), printable(s.Version), printable(s.SpecVersion),
		printable(s.Origin))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RISK\tMETHOD\tTOOL\tPATH\tDEFAULT RETRY\tREASONS")
	for _, op := range rep.Operations {
		codes := make([]string, len(op.Reasons))
		for i, r := range op.Reasons {
			codes[i] = r.Code
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", op.Risk, printable(op.Method), printable(op.Tool),
			printable(op.PathKey), op.DefaultPolicySummary, printable(strings.Join(codes, ", ")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	parts := make([]string, 0, len(risk.Classes))
	for _, c := range risk.Classes {
		parts = append(parts, fmt.Sprintf("%s %d", c, rep.Counts[c.String()]))
	}
	fmt.Fprintf(w, "%d operations: %s\n", len(rep.Operations), strings.Join(parts, " · "))
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, "%d skipped (webhooks and callbacks are not callable)\n", len(rep.Skipped))
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s\n", printable(warn))
	}
	return nil
}

// printable replaces control characters (ESC, CR, tabs that would break the
// table) with a visible placeholder.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '�'
		}
		return r
	}, s)
}
