package risk

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// rulesFingerprint pins the rule table and vocabularies of RulesVersion.
// When this test fails you changed the rules: bump RulesVersion (stored
// tools are then re-classified at start) and update the fingerprint.
const rulesFingerprint = "1c4d36db122cafa1"

func TestRulesVersion(t *testing.T) {
	type fam struct {
		Name  string   `json:"name"`
		Terms []string `json:"terms"`
	}
	var fams []fam
	for _, f := range vocabularies() {
		fams = append(fams, fam{f.name, f.terms})
	}
	b, err := json.Marshal(struct {
		Version int    `json:"version"`
		Rules   []Rule `json:"rules"`
		Vocab   []fam  `json:"vocab"`
	}{RulesVersion, Rules(), fams})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:8]); got != rulesFingerprint {
		t.Errorf("the rule table or a vocabulary changed (fingerprint %s, pinned %s): bump RulesVersion "+
			"so stored tools are re-classified, and pin the new fingerprint", got, rulesFingerprint)
	}
}
