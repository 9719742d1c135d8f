package web

import (
	"errors"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/views"
)

// policyForm converts a stored policy into the editor's values.
func policyForm(p policy.Policy) views.PolicyFormVM {
	f := views.PolicyFormVM{
		Exposed:          p.Exposed,
		TimeoutMS:        strconv.Itoa(p.TimeoutMS),
		DeadlineMS:       strconv.Itoa(p.DeadlineMS),
		MaxResponseBytes: strconv.FormatInt(p.MaxResponseBytes, 10),
		Attempts:         strconv.Itoa(p.Retry.Attempts),
		BackoffMS:        strconv.Itoa(p.Retry.BackoffMS),
		Multiplier:       strconv.FormatFloat(p.Retry.Multiplier, 'g', -1, 64),
		Jitter:           p.Retry.Jitter,
		RetryOn:          retryOnOrDefault(p.Retry.RetryOn),
		Idempotent:       p.Idempotent,
		KeyOn:            p.IdempotencyKey != nil,
		KeyHeader:        policy.DefaultKeyHeader,
		KeySource:        policy.KeyGenerated,
		BreakerThreshold: strconv.Itoa(p.Breaker.Threshold),
		BreakerResetMS:   strconv.Itoa(p.Breaker.ResetMS),
	}
	if k := p.IdempotencyKey; k != nil {
		f.KeyHeader, f.KeySource, f.KeyArgument = k.Header, k.Source, k.Argument
	}
	f.Groups, f.Conditions = scopeForm(p)
	f.PerCall = p.PerCall
	return f
}

// readPolicyForm reads the editor's fields into a policy. base is the
// stored policy: a retry_on set equal to what base already means keeps
// base's value, so "default" (nil) does not turn into an explicit list that
// would show as a change. Unparseable numbers are returned as field errors
// together with the form as typed.
func readPolicyForm(c echo.Context, base policy.Policy) (policy.Policy, views.PolicyFormVM, map[string]string) {
	errs := fieldProblems{}
	f := views.PolicyFormVM{
		Exposed:          c.FormValue("exposed") == "true",
		TimeoutMS:        c.FormValue("timeout_ms"),
		DeadlineMS:       c.FormValue("deadline_ms"),
		MaxResponseBytes: c.FormValue("max_response_bytes"),
		Attempts:         c.FormValue("retry.attempts"),
		BackoffMS:        c.FormValue("retry.backoff_ms"),
		Multiplier:       c.FormValue("retry.multiplier"),
		Jitter:           c.FormValue("retry.jitter") == "true",
		Idempotent:       c.FormValue("idempotent") == "true",
		KeyOn:            c.FormValue("idempotency_key") == "true",
		KeyHeader:        strings.TrimSpace(c.FormValue("idempotency_key.header")),
		KeySource:        c.FormValue("idempotency_key.source"),
		KeyArgument:      strings.TrimSpace(c.FormValue("idempotency_key.argument")),
		BreakerThreshold: c.FormValue("circuit_breaker.threshold"),
		BreakerResetMS:   c.FormValue("circuit_breaker.reset_ms"),
	}
	num := errs.wholeNumber
	p := policy.Policy{
		Exposed:          f.Exposed,
		TimeoutMS:        num(policy.FieldTimeoutMS, f.TimeoutMS),
		DeadlineMS:       num(policy.FieldDeadlineMS, f.DeadlineMS),
		MaxResponseBytes: int64(num(policy.FieldMaxResponseBytes, f.MaxResponseBytes)),
		Retry: policy.Retry{
			Attempts:  num(policy.FieldAttempts, f.Attempts),
			BackoffMS: num(policy.FieldBackoffMS, f.BackoffMS),
			Jitter:    f.Jitter,
		},
		Idempotent: f.Idempotent,
		Breaker: policy.Breaker{
			Threshold: num(policy.FieldBreakerThreshold, f.BreakerThreshold),
			ResetMS:   num(policy.FieldBreakerResetMS, f.BreakerResetMS),
		},
	}
	p.Retry.Multiplier = errs.number(policy.FieldMultiplier, f.Multiplier)
	f.RetryOn = errs.statuses(c, policy.FieldRetryOn)
	p.Retry.RetryOn = keepRetryOn(f.RetryOn, base.Retry.RetryOn)
	if f.KeyOn {
		p.IdempotencyKey = &policy.IdempotencyKey{Header: f.KeyHeader, Source: f.KeySource}
		if f.KeySource == policy.KeyArgument {
			p.IdempotencyKey.Argument = f.KeyArgument
		}
	}
	p.Groups, p.Conditions = readScope(c)
	f.Groups, f.Conditions = scopeForm(p)
	p.PerCall = c.FormValue("per_call")
	f.PerCall = p.PerCall
	return p, f, errs
}

// fieldErrors extracts per-field messages from a store or policy error,
// and the form-wide message for everything else that is safe to show.
func fieldErrors(err error) (map[string]string, []views.FormError) {
	var ve *policy.ValidationError
	if errors.As(err, &ve) {
		return ve.Fields, []views.FormError{{Message: "Some values are out of range: see the messages next to the fields."}}
	}
	return nil, []views.FormError{{Message: apperr.MessageOf(err)}}
}
