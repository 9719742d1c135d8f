package bundle

import "fmt"

// The risk reasons and the effective policy of a tool, in canonical form
// (see encode.go).

func (e *bundleEncoder) reason(r *wireReason) error {
	e.open('{')
	e.name(true, "class")
	e.str(r.Class)
	e.name(false, "code")
	e.str(r.Code)
	e.name(false, "text")
	e.str(r.Text)
	e.close('}')
	return nil
}

func (e *bundleEncoder) policy(p *wirePolicy) error {
	e.open('{')
	e.name(true, "circuit_breaker")
	e.open('{')
	e.name(true, "reset_ms")
	e.int(int64(p.Breaker.ResetMS))
	e.name(false, "threshold")
	e.int(int64(p.Breaker.Threshold))
	e.close('}')
	if len(p.Conditions) > 0 {
		e.name(false, "conditions")
		_ = list(e, p.Conditions, e.condition)
	}
	e.name(false, "deadline_ms")
	e.int(int64(p.DeadlineMS))
	e.name(false, "exposed")
	e.bool(p.Exposed)
	if len(p.Groups) > 0 {
		e.name(false, "groups")
		_ = list(e, p.Groups, func(g *string) error { e.str(*g); return nil })
	}
	e.name(false, "idempotency_key")
	if k := p.IdempotencyKey; k == nil {
		e.null()
	} else {
		e.open('{')
		first := true
		if k.Argument != "" {
			e.name(first, "argument")
			e.str(k.Argument)
			first = false
		}
		e.name(first, "header")
		e.str(k.Header)
		e.name(false, "source")
		e.str(k.Source)
		e.close('}')
	}
	e.name(false, "idempotent")
	e.bool(p.Idempotent)
	e.name(false, "max_response_bytes")
	e.int(p.MaxResponseBytes)
	if p.PerCall != "" {
		e.name(false, "per_call")
		e.str(p.PerCall)
	}
	e.name(false, "retry")
	if err := e.retry(&p.Retry); err != nil {
		return err
	}
	e.name(false, "timeout_ms")
	e.int(int64(p.TimeoutMS))
	e.close('}')
	return nil
}

func (e *bundleEncoder) retry(r *wireRetry) error {
	e.open('{')
	e.name(true, "attempts")
	e.int(int64(r.Attempts))
	e.name(false, "backoff_ms")
	e.int(int64(r.BackoffMS))
	e.name(false, "jitter")
	e.bool(r.Jitter)
	e.name(false, "multiplier")
	out, err := appendES6Number(e.dst, r.Multiplier)
	if err != nil {
		return fmt.Errorf("policy.retry.multiplier: %w", err)
	}
	e.dst = out
	e.name(false, "retry_on")
	_ = list(e, r.RetryOn, func(s *int) error { e.int(int64(*s)); return nil })
	e.close('}')
	return nil
}

func (e *bundleEncoder) condition(c *wireCondition) error {
	e.open('{')
	e.name(true, "effect")
	e.str(c.Effect)
	e.name(false, "expr")
	e.str(c.Expr)
	e.name(false, "message")
	e.str(c.Message)
	e.close('}')
	return nil
}
