package bundle

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// TestCanonicalGolden pins the exact bytes of a small bundle: any change to
// them breaks every signature runtimes hold, so it must be deliberate.
func TestCanonicalGolden(t *testing.T) {
	got, err := Canonical(mustBuild(t, smallInput()))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "small.canonical.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestCanonicalGolden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("canonical bytes differ from %s\n got: %s\nwant: %s", path, got, want)
	}
}

// TestCanonicalRFC8785 runs the examples of RFC 8785 §3.2.2 (values) and
// §3.2.3 (member sorting by UTF-16 code units) through the real path: as a
// tool's input schema inside a bundle.
func TestCanonicalRFC8785(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{
			name: "3.2.2 values",
			in: `{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
			      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
			      "literals": [null, true, false]}`,
			want: `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			name: "3.2.3 sorting",
			in: `{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
			      "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
			      "\u00f6": "Latin Small Letter O With Diaeresis"}`,
			want: "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\"," +
				"\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := smallInput()
			in.Tools[1].InputSchema = json.RawMessage(tc.in)
			got, err := Canonical(mustBuild(t, in))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(got, []byte(`"input_schema":`+tc.want+`,`)) {
				t.Errorf("canonical bundle does not hold %s\n got: %s", tc.want, got)
			}
		})
	}
}

// TestCanonicalNormalizes: the same content gives the same bytes whatever
// the order of lists, the time zone, sub-second parts or nil-versus-empty
// lists, and the caller's bundle is not modified.
func TestCanonicalNormalizes(t *testing.T) {
	b := mustBuild(t, smallInput())
	want, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	shuffled := *b
	shuffled.Tools = slices.Clone(b.Tools)
	slices.Reverse(shuffled.Tools)
	shuffled.Sources = slices.Clone(b.Sources)
	slices.Reverse(shuffled.Sources)
	shuffled.IssuedAt = b.IssuedAt.Add(999 * time.Millisecond).In(time.FixedZone("X", -7*3600))
	shuffled.Tools[0].Params = nil // placeOrder: no params, written as []
	before := shuffled.Tools[0].Name
	got, err := Canonical(&shuffled)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("normalization failed\n got: %s\nwant: %s", got, want)
	}
	if shuffled.Tools[0].Name != before || shuffled.IssuedAt.Location().String() != "X" {
		t.Error("Canonical modified its argument")
	}
}

// TestCanonicalStrings: json.Marshal's HTML escaping (\u003c) must not reach
// the canonical form, which RFC 8785 fixes as the literal characters.
func TestCanonicalStrings(t *testing.T) {
	got, err := Canonical(mustBuild(t, smallInput()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"Place an order <now> & pay"`) {
		t.Errorf("description not in RFC 8785 string form: %s", got)
	}
}
