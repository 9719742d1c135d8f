package bundle

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
)

func testGrant(now time.Time) Grant {
	return Grant{ArgumentsDigest: "sha256:" + strings.Repeat("a", 64), BundleVersion: 7, CallRequest: "cr_1",
		DecidedBy: "sam", DefinitionDigest: "sha256:" + strings.Repeat("b", 64), IssuedAt: now,
		Mode: policy.PerCallApprove, Nonce: strings.Repeat("c", 32), NotAfter: now.Add(DefaultGrantLifetime),
		Principal: GrantPrincipal{Kind: "user", Subject: "alice"}, Tool: "delete_order"}
}

func TestGrantRoundTripAndRefusals(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	k, err := GenerateKey(rand.Reader, now)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := GenerateKey(rand.Reader, now)
	keys := KeySet{Keys: []PublicKey{k.Public()}}
	signed, err := SignGrant(testGrant(now), k)
	if err != nil {
		t.Fatal(err)
	}
	g, err := VerifyGrant(signed, keys, now.Add(time.Minute))
	if err != nil {
		t.Fatalf("VerifyGrant: %v", err)
	}
	call := GrantedCall{Principal: g.Principal, Tool: g.Tool, DefinitionDigest: g.DefinitionDigest,
		ArgumentsDigest: g.ArgumentsDigest, BundleVersion: g.BundleVersion}
	if err := g.Binds(call); err != nil {
		t.Errorf("Binds(the same call) = %v", err)
	}
	for name, mut := range map[string]func(*GrantedCall){
		"principal":  func(c *GrantedCall) { c.Principal.Subject = "mallory" },
		"tool":       func(c *GrantedCall) { c.Tool = "get_order" },
		"definition": func(c *GrantedCall) { c.DefinitionDigest = "sha256:" + strings.Repeat("d", 64) },
		"arguments":  func(c *GrantedCall) { c.ArgumentsDigest = "sha256:" + strings.Repeat("e", 64) },
		"bundle":     func(c *GrantedCall) { c.BundleVersion = 8 },
	} {
		c := call
		mut(&c)
		if err := g.Binds(c); !errors.Is(err, ErrGrantMismatch) {
			t.Errorf("Binds with another %s = %v, want ErrGrantMismatch", name, err)
		}
	}
	fromOther, _ := SignGrant(testGrant(now), other)
	ts, _ := SignTimestamp(1, "sha256:"+strings.Repeat("f", 64), now, time.Hour, k)
	tampered := []byte(strings.Replace(string(signed), ".", ".x", 1))
	for name, tc := range map[string]struct {
		signed []byte
		at     time.Time
		want   error
	}{
		"expired":           {signed, now.Add(DefaultGrantLifetime), ErrGrantExpired},
		"not yet valid":     {signed, now.Add(-time.Hour), ErrGrantNotYetValid},
		"another key":       {fromOther, now, ErrUnknownKey},
		"a timestamp":       {ts, now, ErrGrantSchema},
		"tampered":          {tampered, now, ErrTampered},
		"not a compact JWS": {[]byte("grant"), now, ErrUnsigned},
	} {
		if _, err := VerifyGrant(tc.signed, keys, tc.at); !errors.Is(err, tc.want) {
			t.Errorf("%s: VerifyGrant = %v, want %v", name, err, tc.want)
		}
	}
	if _, err := VerifyTimestamp(signed, keys, now); !errors.Is(err, ErrTimestampSchema) {
		t.Errorf("a grant verified as a timestamp: %v", err)
	}
	bad := testGrant(now)
	bad.Nonce = "short"
	if _, err := SignGrant(bad, k); err == nil {
		t.Error("SignGrant signed a grant without a proper nonce")
	}
}
