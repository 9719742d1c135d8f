package sso

// Codes of a Failure, for the web side's status: the request was wrong,
// the person may not sign in, or the provider could not be reached.
const (
	CodeInvalid     = "invalid"
	CodeForbidden   = "forbidden"
	CodeUnavailable = "unavailable"
)

// Failure is a refused sign-in. Reason is short and fixed, for the audit
// log; Message is the sentence for the person. Neither ever holds a token,
// a code or the provider's raw error text.
type Failure struct {
	Reason  string
	Message string
	Code    string
	// Subject and Email are what a verified ID token asserted, when the
	// sign-in got that far.
	Subject, Email string
	cause          error
}

func (f *Failure) Error() string {
	if f.cause != nil {
		return "sso: " + f.Reason + ": " + f.cause.Error()
	}
	return "sso: " + f.Reason
}

// Unwrap returns the underlying error, for logs.
func (f *Failure) Unwrap() error { return f.cause }

func invalid(reason, msg string, cause error) *Failure {
	return &Failure{Reason: reason, Message: msg, Code: CodeInvalid, cause: cause}
}
