package auth_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/auth/throttletest"
)

func TestThrottle(t *testing.T) {
	throttletest.Run(t, func(_ *testing.T, cfg auth.ThrottleConfig) *auth.Throttle { return auth.NewThrottle(cfg) })
}
