//go:build !runtimeonly

package cli

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/pusher"
	"github.com/toolgate/toolgate/internal/store"
)

// registryFlags are the console side's registry options (serve, publish):
// where published bundles are pushed, and how to sign in there.
type registryFlags struct {
	PublishToRegistry       string `name:"publish-to-registry" env:"TOOLGATE_PUBLISH_TO_REGISTRY" placeholder:"oci://HOST[:PORT]/REPO" help:"Also push every published bundle to this OCI registry repository (tags v<N> and latest), in the background: publishing never waits for or fails because of the registry."`
	RegistryCredentialsFile string `name:"registry-credentials-file" env:"TOOLGATE_REGISTRY_CREDENTIALS_FILE" placeholder:"FILE" help:"JSON {\"username\",\"password\"} for the registry. Or set TOOLGATE_REGISTRY_USERNAME and TOOLGATE_REGISTRY_PASSWORD."`
	RegistryPlainHTTP       bool   `name:"registry-plain-http" help:"Talk plain HTTP to the registry: a loopback registry in development only; production registries use TLS."`
	// R14: the timestamp that tells registry runtimes which bundle is the newest.
	RegistryTimestampInterval time.Duration `name:"registry-timestamp-interval" env:"TOOLGATE_REGISTRY_TIMESTAMP_INTERVAL" default:"1m" help:"How often the signed timestamp beside the bundles is re-signed and pushed while nothing is published. Registry runtimes' --max-staleness must exceed it plus their poll interval."`
	RegistryTimestampExpiry   time.Duration `name:"registry-timestamp-expiry" env:"TOOLGATE_REGISTRY_TIMESTAMP_EXPIRY" placeholder:"DURATION" help:"How long each timestamp is valid (default 3 × --registry-timestamp-interval)."`
}

// pusher returns the background pusher for --publish-to-registry, nil
// when it is not set; it signs timestamps with signer's active key. Bad
// flags are a usage error (exit 2); the registry is not contacted here.
func (f registryFlags) pusher(env *Env, db *store.DB, logger *slog.Logger, signer pusher.Signer) (*pusher.Pusher, error) {
	if f.PublishToRegistry == "" {
		if f.RegistryCredentialsFile != "" || f.RegistryPlainHTTP {
			return nil, Exit(2, fmt.Errorf("--registry-credentials-file and --registry-plain-http need --publish-to-registry"))
		}
		return nil, nil
	}
	if f.RegistryTimestampInterval <= 0 || f.RegistryTimestampExpiry < 0 ||
		(f.RegistryTimestampExpiry > 0 && f.RegistryTimestampExpiry <= f.RegistryTimestampInterval) {
		return nil, Exit(2, fmt.Errorf("--registry-timestamp-interval must be positive and --registry-timestamp-expiry longer than it (got %s and %s)",
			f.RegistryTimestampInterval, f.RegistryTimestampExpiry))
	}
	target, err := oci.ParseTarget(f.PublishToRegistry)
	if err != nil {
		return nil, Exit(2, fmt.Errorf("--publish-to-registry: %w", err))
	}
	creds, err := oci.LoadCredentials(f.RegistryCredentialsFile, env.Getenv)
	if err != nil {
		return nil, Exit(2, err)
	}
	client, err := oci.New(target, oci.Options{Credentials: creds, PlainHTTP: f.RegistryPlainHTTP})
	if err != nil {
		return nil, Exit(2, err)
	}
	return pusher.New(db, client, logger, pusher.Options{Signer: signer,
		TimestampEvery: f.RegistryTimestampInterval, TimestampLifetime: f.RegistryTimestampExpiry}), nil
}
