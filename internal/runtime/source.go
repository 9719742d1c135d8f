package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/toolgate/toolgate/internal/oci"
)

// source is where the sync loop gets signed bundles from the console's
// runtime API (console). It answers one question — is there a bundle other
// than the one identified by etag? — and whatever it returns goes through
// the same verification as a registry's bundles (Sync → accept: signature
// with the trusted keys, newer version, not expired), so the channel is
// never trusted. A registry is not a source: its answers prove no
// freshness, so it has a sync of its own (syncRegistry).
type source interface {
	// fetchBundle returns the current signed bundle, or notModified when
	// etag (what this source said last time) still identifies it.
	fetchBundle(ctx context.Context, req fetchRequest) (fetched, error)
}

// fetchRequest is one fetch: the ETag of the bundle in force, what the
// runtime reports to the console's fleet view (running, refused), and how
// long the console may hold the request when nothing changed (0: answer
// at once; longpoll.go).
type fetchRequest struct {
	etag    string
	running int64
	refused string
	wait    time.Duration
}

// registrySource pulls bundles and the console's timestamp from an OCI
// registry (syncRegistry); the manifest digest of "latest" is the ETag
// (an unchanged tag costs one HEAD request). When a console is configured
// too, each poll also reports to its fleet view.
type registrySource struct {
	client *oci.Client
	report *console // nil: no console configured
	log    *slog.Logger
}

// reportToConsole tells the console's fleet view what runs here, when a
// console is configured; a failure is logged, the registry still polled.
func (s *registrySource) reportToConsole(ctx context.Context, cur *snapshot, refused string) {
	if s.report == nil {
		return
	}
	var running int64
	if cur != nil {
		running = cur.bundle.Version
	}
	if err := s.report.report(ctx, running, refused); err != nil {
		s.log.Warn("reporting to the console failed; the registry is still polled", "err", err)
	}
}

// report tells the console's fleet view which version this runtime runs
// and what it refused, without fetching the bundle: a conditional GET with
// If-None-Match: * is answered 304 and recorded like any poll.
func (c *console) report(ctx context.Context, running int64, refused string) error {
	req, err := c.bundleRequest(ctx, running, refused)
	if err != nil {
		return fmt.Errorf("report to console: %w", err)
	}
	req.Header.Set("If-None-Match", "*")
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("report to console: %w", err)
	}
	resp.Body.Close() // nothing is read: a 304 has no body, any other answer is not used
	switch resp.StatusCode {
	case http.StatusNotModified, http.StatusNotFound:
		return nil
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("report to console: %w", ErrTokenRefused)
	default:
		return fmt.Errorf("report to console: console answered %s", resp.Status)
	}
}

// validateSource checks the console and bundle source options: a registry
// source needs a valid oci:// location; the console needs http(s) and a
// token, and is required unless the bundles come from a registry.
func (o Options) validateSource() []error {
	var errs []error
	if o.BundleSource != "" {
		if _, err := oci.ParseTarget(o.BundleSource); err != nil {
			errs = append(errs, fmt.Errorf("bundle source: %w", err))
		}
	}
	if o.ConsoleURL == "" && o.BundleSource != "" {
		if o.TrustOnFirstUse {
			errs = append(errs, errors.New("trust on first use fetches the console's keys: give the console URL, or pin the keys"))
		}
		return errs
	}
	if u, err := url.Parse(o.ConsoleURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("console URL %q: want http(s)://host[:port]", o.ConsoleURL))
	}
	if o.Token == "" {
		errs = append(errs, errors.New("no runtime token"))
	}
	return errs
}

// setSource builds the console client (when a console URL is set) and the
// bundle source.
func (r *Runtime) setSource() error {
	o := r.opts
	if o.ConsoleURL != "" {
		r.console = &console{base: trimBase(o.ConsoleURL), token: o.Token, name: o.Name, id: r.instanceID, httpClient: o.HTTPClient,
			schemas: schemasHeader(o.BundleSchemas)}
	}
	if o.BundleSource == "" {
		r.source = r.console
		return nil
	}
	target, err := oci.ParseTarget(o.BundleSource)
	if err != nil {
		return fmt.Errorf("bundle source: %w", err)
	}
	client, err := oci.New(target, o.Registry)
	if err != nil {
		return err
	}
	r.registry = &registrySource{client: client, report: r.console, log: r.log}
	return nil
}
