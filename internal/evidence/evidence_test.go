package evidence

import (
	"testing"

	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/policy"
)

func counts(decision, class string, status int, calls, attempts, retried int64, bucket int) callsummary.Counts {
	c := callsummary.Counts{Decision: decision, Class: class, Status: status, Calls: calls, Attempts: attempts, Retried: retried}
	c.Latency[bucket] = calls
	return c
}

// R3's transient set, by class and status, under the tool's retry_on.
func TestTransient(t *testing.T) {
	withServer500 := policy.Retry{RetryOn: []int{500, 503}}
	for _, tt := range []struct {
		class  string
		status int
		r      policy.Retry
		want   bool
	}{
		{"TIMEOUT", 0, policy.Retry{}, true},
		{"NETWORK", 0, policy.Retry{}, true},
		{"RATE_LIMITED", 429, policy.Retry{}, true},
		{"SERVER_ERROR", 503, policy.Retry{}, true},
		{"REJECTED", 408, policy.Retry{}, true},
		{"SERVER_ERROR", 500, policy.Retry{}, false},
		{"SERVER_ERROR", 500, withServer500, true},
		{"SERVER_ERROR", 502, withServer500, false},
		{"RATE_LIMITED", 429, policy.Retry{RetryOn: []int{}}, false},
		{"OUTCOME_UNKNOWN", 0, policy.Retry{}, false},
		{"AUTH_REJECTED", 401, policy.Retry{}, false},
		{"CONFLICT", 409, policy.Retry{}, false},
		{"OK", 200, policy.Retry{}, false},
	} {
		if got := Transient(callsummary.Counts{Class: tt.class, Status: tt.status}, tt.r); got != tt.want {
			t.Errorf("Transient(%s %d, %v) = %v, want %v", tt.class, tt.status, tt.r.RetryOn, got, tt.want)
		}
	}
}

// A percentile is the upper bound of the bucket holding its rank; above
// every bound it says so; no calls, nothing known.
func TestPercentile(t *testing.T) {
	var h [callsummary.Buckets]int64
	if got := Percentile(h, 0.5); got.Known {
		t.Fatalf("no calls: %+v", got)
	}
	h[1], h[4], h[len(h)-1] = 50, 45, 5 // ≤10 ms, ≤100 ms, over 30 s
	for _, tt := range []struct {
		p    float64
		want Latency
	}{
		{0.5, Latency{MS: 10, Known: true}},
		{0.51, Latency{MS: 100, Known: true}},
		{0.95, Latency{MS: 100, Known: true}},
		{0.96, Latency{MS: 30000, Over: true, Known: true}},
	} {
		if got := Percentile(h, tt.p); got != tt.want {
			t.Errorf("p%v = %+v, want %+v", tt.p*100, got, tt.want)
		}
	}
}

// The evidence of a GET with retry on and of a POST with retry off (R1):
// transient failures count as covered only while retry is off, lost POSTs
// as unknown, denied calls count in the mix but not in latency.
func TestOf(t *testing.T) {
	c := []callsummary.Counts{
		counts("allowed", "OK", 200, 8, 10, 2, 2),
		counts("allowed", "SERVER_ERROR", 503, 3, 3, 0, 3),
		counts("allowed", "OUTCOME_UNKNOWN", 0, 1, 1, 0, 11),
		counts("denied_exposure", "TOOL_NOT_EXPOSED", 0, 4, 0, 0, 0),
	}
	get := Of(Tool{Method: "GET", Policy: policy.Policy{Retry: policy.Retry{Attempts: 3}}}, c)
	if get.Calls != 16 || get.Denied != 4 || get.RetryOff || get.Covered != 0 || get.Retried != 2 || get.RetrySucceeded != 2 ||
		get.Unknown != 1 || get.Mutation || get.Mix[0] != (Share{"OK", 8}) || get.Mix[1] != (Share{"TOOL_NOT_EXPOSED", 4}) {
		t.Fatalf("GET with retry: %+v", get)
	}
	if get.P50 != (Latency{MS: 25, Known: true}) || get.P95 != (Latency{MS: 30000, Known: true}) || get.TimeoutMS != 8000 {
		t.Errorf("latency of the sent calls: %+v %+v (timeout %d)", get.P50, get.P95, get.TimeoutMS)
	}
	post := Of(Tool{Method: "POST", Policy: policy.Policy{Retry: policy.Retry{Attempts: 3}, TimeoutMS: 2000}}, c)
	if !post.RetryOff || post.Covered != 3 || !post.Mutation || post.Unknown != 1 || post.TimeoutMS != 2000 {
		t.Fatalf("POST, one attempt by R1: %+v", post)
	}
}
