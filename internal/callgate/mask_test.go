package callgate

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestMaskSecrets(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"pin":{"type":"string","writeOnly":true},
		"code":{"type":"string","format":"password"},
		"user":{"type":"object","properties":{"otp":{"type":"string","writeOnly":true}}},
		"cards":{"type":"array","items":{"type":"string","format":"password"}},
		"people":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}}}`)
	args := map[string]any{
		"pin": "1234", "code": "s3", "amount": 120.0, "client_secret": "x", "accessToken": "y", "X-Api-Key": "z",
		"user":   map[string]any{"otp": "9", "login": "ann", "password": "p"},
		"cards":  []any{"4111", "4222"},
		"people": []any{map[string]any{"name": "bo", "passphrase": "q"}},
	}
	want := map[string]any{
		"pin": Masked, "code": Masked, "amount": 120.0, "client_secret": Masked, "accessToken": Masked, "X-Api-Key": Masked,
		"user":   map[string]any{"otp": Masked, "login": "ann", "password": Masked},
		"cards":  []any{Masked, Masked},
		"people": []any{map[string]any{"name": "bo", "passphrase": Masked}},
	}
	got := MaskSecrets(args, schema)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MaskSecrets =\n %v\nwant\n %v", got, want)
	}
	if args["pin"] != "1234" || args["user"].(map[string]any)["otp"] != "9" {
		t.Error("MaskSecrets changed its input")
	}
	if got := MaskSecrets(map[string]any{"token": "t", "q": "a"}, json.RawMessage(`not json`)); got["token"] != Masked || got["q"] != "a" {
		t.Errorf("by name without a schema: %v", got)
	}
	if got := MaskSecrets(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("nil arguments: %v, want {}", got)
	}
}
