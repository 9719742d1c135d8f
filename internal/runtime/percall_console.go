package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/internal/callgate"
)

// Refusals of the console's call-request API a runtime tells apart
// (internal/callgate): the grant was spent, expired or withdrawn, or the
// console could not be asked at all (fail closed, R16).
var (
	errGrantUsed        = errors.New("the console says the grant was already used")
	errGrantGone        = errors.New("the console says the grant expired or its request was withdrawn")
	errConsoleUnreached = errors.New("the console could not be reached")
)

// consoleRefusal is a 4xx answer of the console: its sentence, for the
// agent (a bound on pending requests, a request the console refuses).
type consoleRefusal struct {
	status  int
	message string
}

func (e *consoleRefusal) Error() string {
	return fmt.Sprintf("the console refused it (HTTP %d): %s", e.status, e.message)
}

// fileCallRequest is POST callgate.PathRequests: the console's Status of
// the request with this call's identity (new or existing).
func (c *console) fileCallRequest(ctx context.Context, req callgate.Request) (callgate.Status, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return callgate.Status{}, fmt.Errorf("file call request: %w", err)
	}
	var st callgate.Status
	if err := c.callGate(ctx, http.MethodPost, callgate.PathRequests, body, &st); err != nil {
		return callgate.Status{}, fmt.Errorf("file call request: %w", err)
	}
	return st, nil
}

// callRequestStatus is GET callgate.PathRequests/{id}?wait=N: the console
// answers once the request is decided or after wait (a long poll).
func (c *console) callRequestStatus(ctx context.Context, id string, wait time.Duration) (callgate.Status, error) {
	// Whole seconds, rounded up: a wait of 0 would answer at once and turn
	// the last fraction of a second into a busy loop.
	secs := int((min(wait, callgate.MaxWait) + time.Second - 1) / time.Second)
	path := callgate.PathRequests + "/" + url.PathEscape(id) + "?wait=" + strconv.Itoa(max(secs, 0))
	var st callgate.Status
	if err := c.callGate(ctx, http.MethodGet, path, nil, &st); err != nil {
		return callgate.Status{}, fmt.Errorf("call request %s: %w", id, err)
	}
	return st, nil
}

// consumeGrant is POST callgate.PathConsume: nil once per grant, fleet-wide.
func (c *console) consumeGrant(ctx context.Context, grant, instance string) error {
	body, err := json.Marshal(callgate.Consume{Grant: grant, Instance: instance})
	if err != nil {
		return fmt.Errorf("consume grant: %w", err)
	}
	if err := c.callGate(ctx, http.MethodPost, callgate.PathConsume, body, nil); err != nil {
		return fmt.Errorf("consume grant: %w", err)
	}
	return nil
}

// callGate makes one request of the call-request API and decodes a
// success into out (nil: none expected). A transport failure or a 5xx is
// errConsoleUnreached, 409/410 the grant's refusals, any other 4xx a
// *consoleRefusal with the console's sentence.
func (c *console) callGate(ctx context.Context, method, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.gateClient().Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", errConsoleUnreached, err)
	}
	defer resp.Body.Close()
	raw, err := readLimited(resp.Body, 1<<20)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %v", errConsoleUnreached, err)
	case resp.StatusCode == http.StatusConflict:
		return errGrantUsed
	case resp.StatusCode == http.StatusGone:
		return errGrantGone
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return ErrTokenRefused
	case resp.StatusCode >= 500:
		return fmt.Errorf("%w: it answered %s", errConsoleUnreached, resp.Status)
	case resp.StatusCode >= 400 || resp.StatusCode < 200 || resp.StatusCode >= 300:
		return &consoleRefusal{status: resp.StatusCode, message: consoleSentence(raw, resp.Status)}
	case out == nil:
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%w: the answer is not JSON: %v", errConsoleUnreached, err)
	}
	return nil
}

// consoleSentence is the message of the runtime API's error body
// ({"error": code, "message": sentence}), or the status line.
func consoleSentence(raw []byte, status string) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		return headerSafe(e.Message, 512)
	}
	return status
}

// gateClient is the console's HTTP client without the bundle fetch's
// overall timeout cutting a long poll short: the request's context bounds
// it instead (the decision wait).
func (c *console) gateClient() *http.Client {
	if c.httpClient.Timeout == 0 || c.httpClient.Timeout > callgate.MaxWait+10*time.Second {
		return c.httpClient
	}
	cl := *c.httpClient
	cl.Timeout = 0
	return &cl
}
