// Package ocilatency measures publish-to-runtime latency through an OCI
// registry against the console's own bundle API, in the same run:
// BenchmarkPublishToRuntime (make bench-oci).
//
// One console (web.Server on loopback, the same *store.DB a publish goes
// through, a pusher to a real docker-registry) and two runtimes with the
// same poll interval and jitter: one fetching from the console, one pulling
// "latest" from the registry. Each iteration publishes a new version as
// the Bundles page does (store.Publish, then the pusher is kicked) and
// times, from the commit, when each runtime serves it. Both runtimes see
// every publish, so the two sides are interleaved by construction and the
// noise of a shared machine falls on both. The next publish waits a random
// part of the poll interval, so publishes land at every phase of the polls.
package ocilatency
