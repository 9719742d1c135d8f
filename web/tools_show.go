package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/evidence"
	"github.com/toolgate/toolgate/internal/importer"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// toolsShow is one tool's page (viewer+): the operation in full, the policy
// panel with the risk class beside the retry summary, and for admins the
// raise-risk form.
func (s *Server) toolsShow(c echo.Context) error {
	return s.renderTool(c, http.StatusOK, views.RaiseRiskVM{})
}

func (s *Server) renderTool(c echo.Context, status int, raise views.RaiseRiskVM) error {
	return s.renderToolWith(c, status, raise, nil)
}

// renderToolWith renders the tool page; a non-nil panel (a policy form that
// failed, with the person's values) replaces the stored one, so a failed
// save shows the same page the form was on.
func (s *Server) renderToolWith(c echo.Context, status int, raise views.RaiseRiskVM, panel *views.ToolPolicyPanelVM) error {
	t, err := s.deps.Store.ToolByName(c.Request().Context(), c.Param("name"))
	if err != nil {
		return err
	}
	m := toolDetail(t)
	m.Page = s.page(c, t.Name)
	m.Notice = policyNotices[c.QueryParam("done")]
	if c.QueryParam("done") == "raised" {
		m.Notice = "Risk class raised."
	}
	if err := s.schemaGapsVM(c, t, &m); err != nil {
		return err
	}
	if panel != nil {
		m.Panel = panel
	} else if t.RemovedAt == nil {
		panel, err := s.toolPolicyPanel(c, t.ID)
		if err != nil {
			return err
		}
		m.Panel = &panel
	}
	if t.RemovedAt == nil {
		et := evidence.Tool{Method: t.Method, Policy: t.Policy}
		if m.Outcomes, err = s.toolOutcomes(c.Request().Context(), t.Name, et); err != nil {
			return err
		}
		if m.Outcomes.Pictures, err = s.toolPictures(c.Request().Context(), t.Name, et); err != nil {
			return err
		}
	}
	if currentUser(c).Has(auth.RoleAdmin) && t.RemovedAt == nil && t.Class < risk.Privileged {
		raise.Show, raise.URL = true, "/tools/"+t.Name+"/risk"
		for _, cl := range risk.Classes {
			if cl > t.Class {
				raise.Classes = append(raise.Classes, cl.String())
			}
		}
		m.Raise = raise
	}
	return render(c, status, views.ToolDetailPage(m))
}

// toolDetail turns the stored operation into text for the page. Schemas
// and extension values are shown as indented JSON inside <pre>, escaped by
// templ like every other string from the document.
func toolDetail(t *store.Tool) views.ToolDetailView {
	op := t.Operation
	m := views.ToolDetailView{Tool: toolRowVM(t.ToolSummary), OperationID: op.OperationID, PathKey: t.PathKey,
		Description: op.Description, Tags: t.Tags, IdemHeader: op.IdempotencyKeyHeader, InputSchema: prettyJSON(op.InputSchema),
		Detected: t.DetectedClass.String()}
	for _, p := range op.Parameters {
		m.Parameters = append(m.Parameters, views.ToolParamVM{Name: p.Name, In: p.In, Required: p.Required,
			Description: p.Description, Schema: string(p.Schema)})
	}
	if b := op.RequestBody; b != nil {
		m.Body = &views.ToolBodyVM{Required: b.Required, MediaTypes: b.MediaTypes, Schema: prettyJSON(b.Schema)}
	}
	for _, alt := range op.Security {
		m.Security = append(m.Security, importer.SecurityText([]openapi.SecurityAlternative{alt}))
	}
	if len(m.Security) == 0 {
		m.Security = []string{"none (no authentication)"}
	}
	for _, sv := range op.Servers {
		m.Servers = append(m.Servers, sv.URL)
	}
	keys := make([]string, 0, len(op.Extensions))
	for k := range op.Extensions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		m.Extensions = append(m.Extensions, views.ToolKVVM{Key: k, Value: string(op.Extensions[k])})
	}
	if t.RemovedAt != nil {
		m.Removed = t.RemovedAt.Format("2006-01-02 15:04 MST")
	}
	if t.RiskOverrideBy != "" {
		m.Override = "Set to " + t.Class.String() + " by " + t.RiskOverrideBy + ": " + t.RiskOverrideReason
	}
	return m
}

func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return strings.TrimSpace(string(b))
}
