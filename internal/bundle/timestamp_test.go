package bundle

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

func stampHeader(k SigningKey) map[string]any {
	return map[string]any{"alg": "EdDSA", "kid": k.KeyID, "typ": TimestampJWSType}
}

func TestTimestampRoundTrip(t *testing.T) {
	k := testKey(t, 1)
	bundleJWS := mustSign(t, mustBuild(t, smallInput()), k)
	digest := BundleDigest(bundleJWS)
	sum := sha256.Sum256(bundleJWS)
	if digest != "sha256:"+hex.EncodeToString(sum[:]) || BundleDigest(append([]byte(" "), bundleJWS...)) != digest {
		t.Fatalf("BundleDigest = %s, want the SHA-256 of the trimmed JWS", digest)
	}
	signed, err := SignTimestamp(7, digest, issued.Add(1500*time.Millisecond), 3*time.Minute, k)
	if err != nil {
		t.Fatal(err)
	}
	got, err := VerifyTimestamp(signed, keySet(testKey(t, 9), k), issued.Add(time.Minute))
	if err != nil {
		t.Fatalf("VerifyTimestamp: %v", err)
	}
	want := Timestamp{BundleDigest: digest, IssuedAt: issued.Add(time.Second), ExpiresAt: issued.Add(3*time.Minute + time.Second),
		Schema: TimestampSchema, Version: 7}
	if *got != want {
		t.Errorf("timestamp = %+v, want %+v", *got, want)
	}
	if !got.Names(7, digest) || got.Names(6, digest) || got.Names(7, "sha256:"+strings.Repeat("0", 64)) {
		t.Error("Names does not compare version and digest")
	}
	// The payload is exactly what doc.go specifies.
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(string(signed), ".")[1])
	wantPayload := `{"bundle_digest":"` + digest + `","expires_at":"2025-03-01T12:03:01Z","issued_at":"2025-03-01T12:00:01Z","schema":"toolgate.timestamp/v1","version":7}`
	if string(payload) != wantPayload {
		t.Errorf("payload = %s\nwant      %s", payload, wantPayload)
	}
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(string(signed), ".")[0])
	if !strings.Contains(string(hdr), `"typ":"toolgate-timestamp+jws"`) || !strings.Contains(string(hdr), `"kid":"`+k.KeyID+`"`) {
		t.Errorf("header = %s", hdr)
	}
}

func TestTimestampRefusals(t *testing.T) {
	k, other := testKey(t, 1), testKey(t, 2)
	bundleJWS := mustSign(t, mustBuild(t, smallInput()), k)
	digest := BundleDigest(bundleJWS)
	good, err := SignTimestamp(3, digest, issued, 3*time.Minute, k)
	if err != nil {
		t.Fatal(err)
	}
	payload := func(s string) []byte { return []byte(s) }
	canonical := `{"bundle_digest":"` + digest + `","expires_at":"2025-03-01T12:03:00Z","issued_at":"2025-03-01T12:00:00Z","schema":"toolgate.timestamp/v1","version":3}`
	now := issued.Add(time.Minute)
	cases := []struct {
		name   string
		signed []byte
		now    time.Time
		want   error
	}{
		{"not a JWS", []byte("version 9 is current"), now, ErrUnsigned},
		{"unsigned", []byte(strings.Join(strings.Split(string(good), ".")[:2], ".") + "."), now, ErrUnsigned},
		{"alg none", handSignNone(t, k, canonical), now, ErrAlgorithm},
		{"other key", mustStamp(t, other, digest), now, ErrUnknownKey},
		{"forged with the kid of the trusted key", handSign(t, stampHeader(k), payload(canonical), other.Private), now, ErrTampered},
		{"tampered version", retarget(t, good, strings.Replace(canonical, `"version":3`, `"version":4`, 1)), now, ErrTampered},
		{"a bundle as a timestamp", bundleJWS, now, ErrTimestampSchema},
		{"bundle typ", handSign(t, header(k), payload(canonical), k.Private), now, ErrTimestampSchema},
		{"unknown member", handSign(t, stampHeader(k), payload(strings.Replace(canonical, `"version":3`, `"version":3,"x":1`, 1)), k.Private), now, ErrTimestampSchema},
		{"not canonical", handSign(t, stampHeader(k), payload(strings.Replace(canonical, `,"version"`, `, "version"`, 1)), k.Private), now, ErrTimestampSchema},
		{"other schema", handSign(t, stampHeader(k), payload(strings.Replace(canonical, "timestamp/v1", "timestamp/v2", 1)), k.Private), now, ErrTimestampSchema},
		{"bad digest", handSign(t, stampHeader(k), payload(strings.Replace(canonical, "sha256:", "sha512:", 1)), k.Private), now, ErrTimestampSchema},
		{"expired", good, issued.Add(3 * time.Minute), ErrTimestampExpired},
		{"issued in the future", good, issued.Add(-ClockSkew - time.Second), ErrTimestampNotYetValid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := VerifyTimestamp(c.signed, keySet(k), c.now)
			if !errors.Is(err, c.want) || got != nil {
				t.Fatalf("VerifyTimestamp = %+v, %v; want %v", got, err, c.want)
			}
		})
	}
	// And the reverse: a timestamp is not a bundle.
	if _, _, err := Verify(good, keySet(k), VerifyOptions{Now: now}); !errors.Is(err, ErrSchema) {
		t.Errorf("Verify(timestamp) = %v, want ErrSchema", err)
	}
	for _, bad := range []struct {
		version  int64
		digest   string
		lifetime time.Duration
	}{{0, digest, time.Minute}, {1, "sha256:abc", time.Minute}, {1, digest, 0}} {
		if _, err := SignTimestamp(bad.version, bad.digest, issued, bad.lifetime, k); err == nil {
			t.Errorf("SignTimestamp(%d, %q, %s) signed", bad.version, bad.digest, bad.lifetime)
		}
	}
}

func mustStamp(t *testing.T, k SigningKey, digest string) []byte {
	t.Helper()
	s, err := SignTimestamp(3, digest, issued, 3*time.Minute, k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// retarget swaps the payload of signed for another, keeping its signature.
func retarget(t *testing.T, signed []byte, payload string) []byte {
	t.Helper()
	p := strings.Split(string(signed), ".")
	return []byte(p[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + p[2])
}

func handSignNone(t *testing.T, k SigningKey, payload string) []byte {
	t.Helper()
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"` + k.KeyID + `","typ":"` + TimestampJWSType + `"}`))
	return []byte(h + "." + base64.RawURLEncoding.EncodeToString([]byte(payload)) + ".")
}
