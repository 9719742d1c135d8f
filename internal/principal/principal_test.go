package principal

import (
	"context"
	"testing"
)

func TestTokenInfoRoundTrip(t *testing.T) {
	p := New(OIDC, "agent-7", "ci-bot", []string{"ops", "billing", "ops"})
	if got := FromTokenInfo(p.TokenInfo(nil)); got.Subject != "agent-7" || len(got.Groups) != 2 || got.Groups[0] != "billing" {
		t.Fatalf("round trip = %+v", got)
	}
	if !p.InGroup("ops") || p.InGroup("op") || !p.InAny([]string{"x", "billing"}) || p.InAny(nil) {
		t.Fatalf("group membership wrong for %+v", p)
	}
	if got := FromTokenInfo(nil); got.Authenticated() {
		t.Fatalf("no token info gave %+v, want anonymous", got)
	}
	ctx := NewContext(context.Background(), p)
	if FromContext(ctx).Subject != "agent-7" || FromContext(context.Background()).Authenticated() {
		t.Fatal("context round trip wrong")
	}
}
