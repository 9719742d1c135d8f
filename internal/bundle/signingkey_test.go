package bundle

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestSigningKeyNeverPrintsItsPrivateHalf: every way a key can end up in
// text — fmt verbs, a struct that holds it, slog, JSON — shows the kid and
// no encoding of the private key.
func TestSigningKeyNeverPrintsItsPrivateHalf(t *testing.T) {
	k, err := GenerateKey(bytes.NewReader(bytes.Repeat([]byte{7}, 32)), time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	holder := struct{ Key SigningKey }{k}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("publish", "key", k)
	jsonOut, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"%v":           fmt.Sprintf("%v", k),
		"%+v":          fmt.Sprintf("%+v", holder),
		"%#v":          fmt.Sprintf("%#v", holder),
		"%s in errors": fmt.Errorf("signing with %s", k).Error(),
		"slog":         logged.String(),
		"json":         string(jsonOut),
	}
	secrets := []string{
		base64.StdEncoding.EncodeToString(k.Private), base64.RawURLEncoding.EncodeToString(k.Private.Seed()),
		hex.EncodeToString(k.Private.Seed()), fmt.Sprint([]byte(k.Private.Seed())),
	}
	for name, out := range outputs {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(out, k.KeyID) {
				t.Errorf("output does not name the kid %s: %s", k.KeyID, out)
			}
			for _, s := range secrets {
				if strings.Contains(out, s) || strings.Contains(out, s[:16]) {
					t.Fatalf("output shows the private key: %s", out)
				}
			}
		})
	}
}
