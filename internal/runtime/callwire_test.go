package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/executor"
)

// TestResultJSONMatchesMarshal: what tools/call returns is byte for byte
// what json.Marshal of the executor's result gave before, for JSON bodies
// (with whitespace, HTML characters, U+2028, non-ASCII), text bodies,
// none, and classified errors.
func TestResultJSONMatchesMarshal(t *testing.T) {
	bodies := []any{nil, json.RawMessage(nil), json.RawMessage(`{"id":"42"}`),
		json.RawMessage(" {\n \"a\" : [1, 2.50, \"<b>&amp;</b>\"],\t\"b\":\"\u2028é\\u00e9\"}\n"),
		json.RawMessage(`"just a string"`), json.RawMessage(`null`), json.RawMessage(`[]`),
		"plain text", "text with <html> & \"quotes\"\n\x01", "\xff invalid utf-8", ""}
	errs := []*executor.Error{nil,
		{Class: executor.ClassServerError, Message: "upstream answered 503 <x>", Instruction: "Retry later."},
		{Class: executor.ClassInvalidArguments, Message: "bad \"arg\"", Instruction: "Fix it."}}
	rnd := rand.New(rand.NewPCG(1, 2))
	i := 0
	for _, body := range bodies {
		for _, e := range errs {
			for _, tool := range []string{"getItem", "tool<&>\"x\"", "é"} {
				i++
				res := &executor.Result{Tool: tool, OK: e == nil, Status: rnd.IntN(3) * 200, Body: body,
					Attempts: rnd.IntN(5), Duration: time.Duration(rnd.Int64N(int64(time.Hour))), Err: e}
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					want, err := json.Marshal(res)
					if err != nil {
						t.Fatal(err)
					}
					got, err := appendResultJSON(nil, res)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("appendResultJSON = %s, %v\nwant %s", got, err, want)
					}
				})
			}
		}
	}
}

// TestDecodeArgumentsAsEncodingJSON: the arguments map is what
// encoding/json (UseNumber) made of the same bytes, and what is not an
// object is refused.
func TestDecodeArgumentsAsEncodingJSON(t *testing.T) {
	for _, raw := range []string{`{"item_id":"42"}`, `{"n":12345678901234567890,"f":1.5e3,"neg":-0}`,
		`{"a":{"b":[1,"x",null,true]},"a":"last wins"}`, ` {"s":"\u00e9\n"} `, `{}`} {
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		dec.UseNumber()
		var want map[string]any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		got, err := decodeArguments(json.RawMessage(raw))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeArguments(%s) = %#v, %v; want %#v", raw, got, err, want)
		}
	}
	for _, raw := range []string{`[1,2]`, `"x"`, `42`, `{"a":`, `true`} {
		if got, err := decodeArguments(json.RawMessage(raw)); err == nil {
			t.Errorf("decodeArguments(%s) = %#v, want an error", raw, got)
		}
	}
	if got, err := decodeArguments(json.RawMessage(" null ")); err != nil || len(got) != 0 {
		t.Errorf("null arguments: %v, %v", got, err)
	}
}
