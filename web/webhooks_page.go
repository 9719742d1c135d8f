package web

import (
	"crypto/rand"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/notify"
	"github.com/toolgate/toolgate/internal/webhook"
	"github.com/toolgate/toolgate/views"
)

// deliveryLogRows is how many attempts a webhook's page shows.
const deliveryLogRows = 100

// ephemeralKEK is a key of this process only (WebhookDeps.Seal nil).
func ephemeralKEK() (keyring.KEK, error) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return keyring.NewKEK(b[:])
}

// webhooksPage is GET /webhooks (admin): the webhooks and the form to add one.
func (s *Server) webhooksPage(c echo.Context) error {
	m, err := s.webhooksView(c)
	if err != nil {
		return err
	}
	if c.QueryParam("done") == "deleted" {
		m.Notice = "Webhook deleted with its delivery log."
	}
	return render(c, http.StatusOK, views.WebhooksPage(m))
}

func (s *Server) webhooksView(c echo.Context) (views.WebhooksView, error) {
	m := views.WebhooksView{Page: s.page(c, "Webhooks"), Formats: webhook.Formats, Events: eventChoices(),
		Form: views.WebhookForm{Format: webhook.FormatJSON, Events: webhook.Events}}
	hooks, err := s.deps.Store.Webhooks(c.Request().Context())
	if err != nil {
		return m, err
	}
	for _, w := range hooks {
		m.Webhooks = append(m.Webhooks, views.WebhookRow{ID: w.ID, Name: w.Name, URL: w.URL, Format: w.Format,
			Events: w.Events(), Created: consoleTime(w.CreatedAt) + " by " + w.CreatedBy})
	}
	return m, nil
}

func eventChoices() []views.Choice {
	return []views.Choice{{Value: notify.CallRequest, Label: "Call requests (R16)"},
		{Value: notify.ChangeRequest, Label: "Change requests (R10)"}}
}

// webhooksCreate is POST /webhooks (admin). As with runtime tokens, the
// answer is the page with the secret, shown this once (no-store).
func (s *Server) webhooksCreate(c echo.Context) error {
	form, _ := c.FormParams()
	n := webhook.New{Name: c.FormValue("name"), URL: c.FormValue("url"), Format: c.FormValue("format"), Events: form["events"]}
	m, err := s.webhooksView(c)
	if err != nil {
		return err
	}
	m.Form = views.WebhookForm{Name: n.Name, URL: n.URL, Format: n.Format, Events: n.Events}
	if problems := n.Check(s.deps.Webhooks.AllowInsecure); len(problems) > 0 {
		for _, p := range problems {
			m.Errors = append(m.Errors, views.FormError{Field: p.Field, Message: p.Message})
		}
		return render(c, http.StatusUnprocessableEntity, views.WebhooksPage(m))
	}
	w, secret, err := webhook.Create(c.Request().Context(), s.deps.Store, s.deps.Webhooks.Seal, currentUser(c).Email, n)
	if status, errs, ok := formProblem(err); ok {
		m.Errors = errs
		return render(c, status, views.WebhooksPage(m))
	}
	if err != nil {
		return err
	}
	if m, err = s.webhooksView(c); err != nil {
		return err
	}
	m.NewSecret, m.NewName, m.NewFormat = secret, w.Name, w.Format
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.WebhooksPage(m))
}

// webhooksDelete is POST /webhooks/:id/delete (admin, confirmed).
func (s *Server) webhooksDelete(c echo.Context) error {
	if c.FormValue("confirm") != "yes" {
		return apperr.Invalidf("Tick confirm to delete the webhook.")
	}
	if err := s.deps.Store.DeleteWebhook(c.Request().Context(), currentUser(c).Email, c.Param("id")); err != nil {
		return err
	}
	return seeOther(c, "/webhooks?done=deleted")
}

// webhookLog is GET /webhooks/:id (admin): the webhook's delivery log.
func (s *Server) webhookLog(c echo.Context) error {
	ctx := c.Request().Context()
	w, err := s.deps.Store.Webhook(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	attempts, err := s.deps.Store.WebhookAttempts(ctx, w.ID, deliveryLogRows)
	if err != nil {
		return err
	}
	m := views.WebhookLogView{Page: s.page(c, "Webhook "+w.Name), Name: w.Name, URL: w.URL, Format: w.Format, Limit: deliveryLogRows}
	for _, a := range attempts {
		status := "no answer"
		if a.Status > 0 {
			status = strconv.Itoa(a.Status)
		}
		m.Attempts = append(m.Attempts, views.AttemptRow{At: consoleTime(a.At), Event: a.Kind + " " + a.Subject,
			Attempt: a.Attempt, Status: status, Error: a.Error, DurationMS: a.DurationMS, Outcome: a.Outcome})
	}
	return render(c, http.StatusOK, views.WebhookLogPage(m))
}
