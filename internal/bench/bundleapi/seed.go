package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/store"
)

// start seeds a data directory for s and starts the servers on it.
func start(ctx context.Context, o options, s *size) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	dir, err := os.MkdirTemp("", "toolgate-bench-bundle-")
	if err != nil {
		return nil, err
	}
	if !o.keep {
		stops = append(stops, func() { _ = os.RemoveAll(dir) })
	}
	// nginx workers run as an unprivileged user and must read the file.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if s.token, s.rec, err = seed(ctx, data, s); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	s.jwsBytes = len(s.rec.Signed)
	file := filepath.Join(dir, "bundle.jws")
	if err := os.WriteFile(file, []byte(s.rec.Signed), 0o644); err != nil {
		return nil, err
	}
	fmt.Printf("== %s bundle: %d tools, %d bytes signed, ETag %s\n", s.label, s.rec.ToolCount, len(s.rec.Signed), s.rec.ETag)
	tg, err := startToolgate(o, data, filepath.Join(dir, "toolgate.log"))
	if err != nil {
		return nil, fmt.Errorf("toolgate: %w", err)
	}
	stops = append(stops, tg.stop)
	s.servers[srvConsole] = tg
	s.servers[srvToolgate] = server{url: tg.apiURL, pids: tg.pids, stop: func() {}}
	starts := map[int]func() (server, error){
		srvNginx:    func() (server, error) { return startNginx(o, dir, file, s.token, s.rec.ETag) },
		srvNetHTTP:  func() (server, error) { return startMinimal(s.token, s.rec) },
		srvFastHTTP: func() (server, error) { return startFastHTTP(s.token, s.rec) },
	}
	for i, st := range starts {
		srv, err := st()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", serverNames[i], err)
		}
		stops = append(stops, srv.stop)
		s.servers[i] = srv
	}
	for i, srv := range s.servers {
		if err := check(srv.url, s.token, s.rec); err != nil {
			return nil, fmt.Errorf("%s at %s: %w", serverNames[i], srv.url, err)
		}
	}
	return stop, nil
}

// seed creates a database with one source of READ operations, all
// exposed, publishes it and creates a runtime token, the way serve would
// find them.
func seed(ctx context.Context, data string, s *size) (string, *store.BundleRecord, error) {
	if err := os.MkdirAll(data, 0o700); err != nil {
		return "", nil, err
	}
	db, err := store.Open(ctx, config.DBPath(data))
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return "", nil, err
	}
	d, err := db.ProjectDefaults(ctx)
	if err != nil {
		return "", nil, err
	}
	d.Defaults.ExposeNewReadTools = true
	if _, err := db.SaveProjectDefaults(ctx, "bench", d.Version, d.Defaults); err != nil {
		return "", nil, err
	}
	doc, err := openapi.LoadBytes("bench.json", benchDoc(s.ops, s.descLen), openapi.Options{})
	if err != nil {
		return "", nil, err
	}
	if _, err := db.ImportSource(ctx, "bench", store.SourceImport{Name: "bench", Doc: doc}); err != nil {
		return "", nil, err
	}
	keys := &bundle.KeyDir{Path: filepath.Join(data, "keys")}
	k, _, err := keys.EnsureActive(rand.Reader, time.Now())
	if err != nil {
		return "", nil, err
	}
	rec, err := db.Publish(ctx, store.PublishRequest{Actor: "bench", Key: k, Note: "bench"})
	if err != nil {
		return "", nil, err
	}
	_, token, err := db.CreateRuntimeToken(ctx, "bench", "bench")
	return token, rec, err
}

// benchDoc is an OpenAPI 3.0 document with n GET operations whose
// descriptions are descLen characters long.
func benchDoc(n, descLen int) []byte {
	paths := map[string]any{}
	word := "The quick brown fox jumps over the lazy dog. "
	desc := strings.Repeat(word, descLen/len(word)+1)[:descLen]
	for i := range n {
		paths[fmt.Sprintf("/things%04d/{id}", i)] = map[string]any{"get": map[string]any{
			"operationId": fmt.Sprintf("getThing%04d", i), "summary": fmt.Sprintf("Read thing %d", i), "description": desc,
			"parameters": []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}},
			"responses":  map[string]any{"200": map[string]any{"description": "ok"}},
		}}
	}
	b, _ := json.Marshal(map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "Bench", "version": "1"},
		"servers": []any{map[string]any{"url": "https://bench.example.com"}}, "paths": paths})
	return b
}
