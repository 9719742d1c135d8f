package bundle

import "github.com/toolgate/toolgate/internal/policy"

// The effective policy between policy.Policy and its wire form (see
// wire_convert.go). retry_on keeps nil as nil: Validate refuses it, and
// turning it into [] here would hide the refusal. groups and conditions
// keep nil and empty apart too; the encoder omits both (doc.go).

func policyToWire(p *policy.Policy) wirePolicy {
	w := wirePolicy{Exposed: p.Exposed, TimeoutMS: p.TimeoutMS, DeadlineMS: p.DeadlineMS,
		MaxResponseBytes: p.MaxResponseBytes, Idempotent: p.Idempotent,
		Retry: wireRetry{Attempts: p.Retry.Attempts, BackoffMS: p.Retry.BackoffMS, Multiplier: p.Retry.Multiplier,
			Jitter: p.Retry.Jitter, RetryOn: p.Retry.RetryOn},
		Breaker: wireBreaker{Threshold: p.Breaker.Threshold, ResetMS: p.Breaker.ResetMS},
		Groups:  p.Groups, Conditions: mapList(p.Conditions, conditionToWire), PerCall: p.PerCall}
	if k := p.IdempotencyKey; k != nil {
		w.IdempotencyKey = &wireIdempotencyKey{Header: k.Header, Source: k.Source, Argument: k.Argument}
	}
	return w
}

func policyFromWire(w *wirePolicy) policy.Policy {
	p := policy.Policy{Exposed: w.Exposed, TimeoutMS: w.TimeoutMS, DeadlineMS: w.DeadlineMS,
		MaxResponseBytes: w.MaxResponseBytes, Idempotent: w.Idempotent,
		Retry: policy.Retry{Attempts: w.Retry.Attempts, BackoffMS: w.Retry.BackoffMS, Multiplier: w.Retry.Multiplier,
			Jitter: w.Retry.Jitter, RetryOn: w.Retry.RetryOn},
		Breaker: policy.Breaker{Threshold: w.Breaker.Threshold, ResetMS: w.Breaker.ResetMS},
		Groups:  w.Groups, Conditions: mapList(w.Conditions, conditionFromWire), PerCall: w.PerCall}
	if k := w.IdempotencyKey; k != nil {
		p.IdempotencyKey = &policy.IdempotencyKey{Header: k.Header, Source: k.Source, Argument: k.Argument}
	}
	return p
}

func conditionToWire(c *policy.Condition) wireCondition {
	return wireCondition{Effect: c.Effect, Expr: c.Expr, Message: c.Message}
}

func conditionFromWire(c *wireCondition) policy.Condition {
	return policy.Condition{Effect: c.Effect, Expr: c.Expr, Message: c.Message}
}
