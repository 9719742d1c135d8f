package web

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/views"
)

// defaultsForm converts project defaults into the page's values.
func defaultsForm(d policy.ProjectDefaults) views.DefaultsFormVM {
	return views.DefaultsFormVM{
		SafeAttempts:       strconv.Itoa(d.Safe.Attempts),
		SafeBackoffMS:      strconv.Itoa(d.Safe.BackoffMS),
		SafeMultiplier:     strconv.FormatFloat(d.Safe.Multiplier, 'g', -1, 64),
		SafeJitter:         d.Safe.Jitter,
		SafeRetryOn:        retryOnOrDefault(d.Safe.RetryOn),
		SafeTimeoutMS:      strconv.Itoa(d.Safe.TimeoutMS),
		AllTimeoutMS:       strconv.Itoa(d.All.TimeoutMS),
		AllDeadlineMS:      strconv.Itoa(d.All.DeadlineMS),
		AllMaxResponse:     strconv.FormatInt(d.All.MaxResponseBytes, 10),
		BreakerThreshold:   strconv.Itoa(d.All.Breaker.Threshold),
		BreakerResetMS:     strconv.Itoa(d.All.Breaker.ResetMS),
		ExposeNewReadTools: d.ExposeNewReadTools,
	}
}

// readDefaultsForm reads the page's fields. Only the fields of
// policy.ProjectDefaults exist, so no form can ask defaults for anything R2
// or R10 reserves to explicit per-tool actions, whatever it posts.
func readDefaultsForm(c echo.Context, base policy.ProjectDefaults) (policy.ProjectDefaults, views.DefaultsFormVM, map[string]string) {
	errs := fieldProblems{}
	f := views.DefaultsFormVM{
		SafeAttempts: c.FormValue("safe.attempts"), SafeBackoffMS: c.FormValue("safe.backoff_ms"),
		SafeMultiplier: c.FormValue("safe.multiplier"), SafeJitter: c.FormValue("safe.jitter") == "true",
		SafeTimeoutMS: c.FormValue("safe.timeout_ms"), AllTimeoutMS: c.FormValue("all.timeout_ms"),
		AllDeadlineMS: c.FormValue("all.deadline_ms"), AllMaxResponse: c.FormValue("all.max_response_bytes"),
		BreakerThreshold: c.FormValue("all.circuit_breaker.threshold"), BreakerResetMS: c.FormValue("all.circuit_breaker.reset_ms"),
		ExposeNewReadTools: c.FormValue("expose_new_read_tools") == "true",
	}
	num := errs.wholeNumber
	d := policy.ProjectDefaults{
		Safe: policy.SafeDefaults{Attempts: num("safe.attempts", f.SafeAttempts), BackoffMS: num("safe.backoff_ms", f.SafeBackoffMS),
			Jitter: f.SafeJitter, TimeoutMS: num("safe.timeout_ms", f.SafeTimeoutMS)},
		All: policy.AllDefaults{TimeoutMS: num("all.timeout_ms", f.AllTimeoutMS), DeadlineMS: num("all.deadline_ms", f.AllDeadlineMS),
			MaxResponseBytes: int64(num("all.max_response_bytes", f.AllMaxResponse)),
			Breaker: policy.Breaker{Threshold: num("all.circuit_breaker.threshold", f.BreakerThreshold),
				ResetMS: num("all.circuit_breaker.reset_ms", f.BreakerResetMS)}},
		ExposeNewReadTools: f.ExposeNewReadTools,
	}
	d.Safe.Multiplier = errs.number("safe.multiplier", f.SafeMultiplier)
	f.SafeRetryOn = errs.statuses(c, "safe.retry_on")
	d.Safe.RetryOn = keepRetryOn(f.SafeRetryOn, base.Safe.RetryOn)
	return d, f, errs
}

// defaultsDiff lists the fields that differ between two forms.
func defaultsDiff(a, b views.DefaultsFormVM) []views.DiffRowVM {
	var out []views.DiffRowVM
	add := func(field, x, y string) {
		if x != y {
			out = append(out, views.DiffRowVM{Field: field, Before: x, After: y})
		}
	}
	add("safe.attempts", a.SafeAttempts, b.SafeAttempts)
	add("safe.backoff_ms", a.SafeBackoffMS, b.SafeBackoffMS)
	add("safe.multiplier", a.SafeMultiplier, b.SafeMultiplier)
	add("safe.jitter", yesNo(a.SafeJitter), yesNo(b.SafeJitter))
	add("safe.retry_on", statusList(a.SafeRetryOn), statusList(b.SafeRetryOn))
	add("safe.timeout_ms", a.SafeTimeoutMS, b.SafeTimeoutMS)
	add("all.timeout_ms", a.AllTimeoutMS, b.AllTimeoutMS)
	add("all.deadline_ms", a.AllDeadlineMS, b.AllDeadlineMS)
	add("all.max_response_bytes", a.AllMaxResponse, b.AllMaxResponse)
	add("all.circuit_breaker.threshold", a.BreakerThreshold, b.BreakerThreshold)
	add("all.circuit_breaker.reset_ms", a.BreakerResetMS, b.BreakerResetMS)
	add("expose_new_read_tools", yesNo(a.ExposeNewReadTools), yesNo(b.ExposeNewReadTools))
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func statusList(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ", ")
}
