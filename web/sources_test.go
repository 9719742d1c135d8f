package web

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// splitDoc is petsDoc with the pet schema in a second file.
var splitDoc = []uploadFile{
	{"openapi.yaml", strings.Replace(petsDoc(""), `post: {operationId: createPet, summary: Add a pet, tags: [pets], responses: {"201": {description: ok}}}`,
		`post: {operationId: createPet, summary: Add a pet, requestBody: {content: {application/json: {schema: {$ref: "pet.yaml"}}}}, responses: {"201": {description: ok}}}`, 1)},
	{"pet.yaml", "type: object\nproperties: {name: {type: string}}\n"},
}

func TestSourcesImportKinds(t *testing.T) {
	tests := []struct {
		name   string
		fields map[string]string
		files  []uploadFile
	}{
		{"single file", map[string]string{"name": "pets"}, []uploadFile{{"pets.yaml", petsDoc("")}}},
		{"several files", map[string]string{"name": "pets"}, splitDoc},
		{"zip", map[string]string{"name": "pets"}, nil},
		{"paste", map[string]string{"name": "pets", "document": petsDoc("")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestApp(t, true)
			files := tt.files
			if tt.name == "zip" {
				files = []uploadFile{{"pets.zip", zipOf(t, splitDoc...)}}
			}
			rec := a.upload("/sources", tt.fields, files...)
			wantStatus(t, rec, 303)
			if loc := rec.Header().Get("Location"); loc != "/sources/pets?done=imported" {
				t.Fatalf("Location %q", loc)
			}
			page := a.do(request{method: "GET", path: "/sources/pets?done=imported", cookie: a.sessionCookie("viewer")})
			wantStatus(t, page, 200)
			wantPage(t, page, in(tid("source")+" "+tid("notice")), in(tid("source"), hasText("https://pets.example.com")),
				in(`a[href="/tools?source=pets&class=DESTRUCTIVE"]`+tid("count-DESTRUCTIVE"), hasText("DESTRUCTIVE")))
			src, err := a.db.SourceByName(context.Background(), "pets")
			if err != nil || src.Total() != 4 {
				t.Fatalf("stored %v, %v", src, err)
			}
		})
	}
}

func TestSourcesImportRefusals(t *testing.T) {
	tests := []struct {
		name   string
		fields map[string]string
		files  []uploadFile
		status int
		msg    string
	}{
		{"invalid yaml names file and line", map[string]string{"name": "pets"}, []uploadFile{{"bad.yaml", "openapi: 3.0.3\ninfo: [unclosed\n"}}, 400, "bad.yaml:"},
		{"not openapi", map[string]string{"name": "pets", "document": "{\"hello\": 1}"}, nil, 400, "pasted.json"},
		{"nothing uploaded", map[string]string{"name": "pets"}, nil, 400, "Choose a file"},
		{"bad source name", map[string]string{"name": "Pets!"}, []uploadFile{{"pets.yaml", petsDoc("")}}, 400, "source name"},
		{"no origin", map[string]string{"name": "pets", "document": strings.Replace(petsDoc(""), "https://pets.example.com", "/v1", 1)}, nil, 400, "give the origin"},
		{"bad origin", map[string]string{"name": "pets", "origin": "https://u:p@x.example"}, []uploadFile{{"pets.yaml", petsDoc("")}}, 400, "user name"},
		{"referenced file does not parse", map[string]string{"name": "pets"}, []uploadFile{splitDoc[0], {"pet.yaml", "type: [object\n"}}, 400, "pet.yaml:1:14: invalid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestApp(t, true)
			rec := a.upload("/sources", tt.fields, tt.files...)
			wantStatus(t, rec, tt.status)
			wantPage(t, rec, in(tid("form-error"), hasText(tt.msg)))
			// The form keeps what was typed.
			if v := tt.fields["name"]; v != "" {
				wantPage(t, rec, in(tid("import-form")+` input[name="name"]`, hasAttr("value", v)))
			}
			if srcs, _ := a.db.ListSources(context.Background()); len(srcs) != 0 {
				t.Errorf("stored %d sources", len(srcs))
			}
		})
	}
}

func TestSourcesImportTooLarge(t *testing.T) {
	a := newTestApp(t, true)
	big := strings.Repeat("a", int(maxUploadBytes)+10)
	rec := a.upload("/sources", map[string]string{"name": "pets"}, uploadFile{"big.yaml", big})
	wantStatus(t, rec, 413)
	wantPage(t, rec, in(tid("error-page"), hasText("larger than 25 MiB")))
}

var digestField = regexp.MustCompile(`name="digest" value="([0-9a-f]+)"`)

func TestSourcesReimportPreviewAndApply(t *testing.T) {
	a := newTestApp(t, true)
	wantStatus(t, a.upload("/sources", map[string]string{"name": "pets"}, uploadFile{"pets.yaml", petsDoc("")}), 303)
	if _, err := a.db.BulkTools(context.Background(), "t", "expose", []string{"createPet"}, true); err != nil {
		t.Fatal(err)
	}
	next := strings.Replace(petsDoc("  /owners:\n    get: {operationId: listOwners, responses: {\"200\": {description: ok}}}\n"),
		"summary: Add a pet", "summary: Purge a pet", 1)
	rec := a.upload("/sources", map[string]string{"name": "pets"}, uploadFile{"pets.yaml", next})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("import-preview")+" "+tid("diff-added"), hasText("listOwners")),
		in(tid("import-preview")+" "+tid("diff-changed"), hasText("WRITE to DESTRUCTIVE")),
		in(tid("import-preview"), hasText("1 added")))
	m := digestField.FindStringSubmatch(rec.Body.String())
	if m == nil {
		t.Fatal("no digest in the preview form")
	}
	if _, err := a.db.ToolByName(context.Background(), "listOwners"); err == nil {
		t.Fatal("the preview stored something")
	}
	apply := func(rev string) int {
		return a.do(request{method: "POST", path: "/sources/pets/apply", cookie: a.sessionCookie("admin"), csrf: true,
			form: url.Values{"digest": {m[1]}, "base_revision": {rev}}}).Code
	}
	if code := apply("1"); code != 303 {
		t.Fatalf("apply: %d", code)
	}
	if tool, err := a.db.ToolByName(context.Background(), "createPet"); err != nil || tool.Exposed || tool.SuspendedReason == "" {
		t.Errorf("createPet not suspended: %+v %v", tool, err)
	}
	// The same preview cannot be applied twice.
	if code := apply("1"); code != 409 {
		t.Errorf("second apply: %d", code)
	}
	// A preview overtaken by another import is refused.
	rec = a.upload("/sources", map[string]string{"name": "pets"}, uploadFile{"pets.yaml", petsDoc("")})
	stale := digestField.FindStringSubmatch(rec.Body.String())
	other := a.upload("/sources", map[string]string{"name": "pets"}, uploadFile{"pets.yaml", next + "\n"})
	if code := a.do(request{method: "POST", path: "/sources/pets/apply", cookie: a.sessionCookie("admin"), csrf: true,
		form: url.Values{"digest": {digestField.FindStringSubmatch(other.Body.String())[1]}, "base_revision": {"2"}}}).Code; code != 303 {
		t.Fatalf("other apply: %d", code)
	}
	rec = a.do(request{method: "POST", path: "/sources/pets/apply", cookie: a.sessionCookie("admin"), csrf: true,
		form: url.Values{"digest": {stale[1]}, "base_revision": {"2"}}})
	wantStatus(t, rec, 409)
	wantPage(t, rec, in(tid("error-page"), hasText("revision 3")))
}

// TestSourcesImportFlagsSchemaGaps uploads a set whose one body schema is a
// $ref leaving the set: the import succeeds, the tool is flagged on its page
// and cannot be exposed until an admin acknowledges the incomplete schema.
func TestSourcesImportFlagsSchemaGaps(t *testing.T) {
	a := newTestApp(t, true)
	files := []uploadFile{{"a.yaml", strings.Replace(splitDoc[0].data, "pet.yaml", "../secret.yaml", 1)}, {"unused.yaml", "not: [yaml\n"}}
	rec := a.upload("/sources", map[string]string{"name": "pets"}, files...)
	wantStatus(t, rec, 303)
	page := a.do(request{method: "GET", path: "/sources/pets", cookie: a.sessionCookie("viewer")})
	wantPage(t, page, in(tid("import-warnings")+" li", hasText("$ref outside the file set is not allowed")))
	tool := a.do(request{method: "GET", path: "/tools/createPet", cookie: a.sessionCookie("admin")})
	wantStatus(t, tool, 200)
	wantPage(t, tool, in(tid("schema-gaps")+" "+tid("schema-gaps-unacknowledged")),
		in(tid("schema-gaps")+` form[method="post"][action="/tools/createPet/schema-gaps/acknowledge"]`))
	// A re-import preview flags an added tool with gaps on its row.
	next := strings.Replace(files[0].data, "paths:", "paths:\n  /owners:\n    post: {operationId: addOwner, requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Gone'}}}}, responses: {\"200\": {description: ok}}}", 1)
	preview := a.upload("/sources", map[string]string{"name": "pets"}, uploadFile{"a.yaml", next})
	wantStatus(t, preview, 200)
	wantPage(t, preview, in(tid("diff-added"), hasText("addOwner")), in(tid("diff-added")+" "+tid("schema-gaps"), hasText("unresolvable $ref")))
	ack := a.do(request{method: "POST", path: "/tools/createPet/schema-gaps/acknowledge", cookie: a.sessionCookie("admin"), csrf: true})
	wantStatus(t, ack, 303)
	after := a.do(request{method: "GET", path: "/tools/createPet", cookie: a.sessionCookie("viewer")})
	wantPage(t, after, in(tid("schema-gaps")+" "+tid("schema-gaps-ack"), hasText("Acknowledged by admin@example.com")),
		none(tid("schema-gaps-unacknowledged")), none(`form[action$="/schema-gaps/acknowledge"]`)) // a viewer sees no acknowledgement form
}
