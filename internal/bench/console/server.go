package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"
)

// console is a running `toolgate serve` on a loopback port.
type console struct {
	bin, dataDir, base string
	cmd                *exec.Cmd
	log                bytes.Buffer
}

// cli runs a toolgate subcommand against the data directory.
func (c *console) cli(ctx context.Context, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = append(os.Environ(), "TOOLGATE_DATA_DIR="+c.dataDir)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("toolgate %s: %w: %s", strings.Join(args[:1], " "), err, lastLine(string(out)))
	}
	return string(out), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// start runs serve on a free loopback port and waits for /healthz.
func (c *console) start(ctx context.Context) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	c.base = "http://" + addr
	c.cmd = exec.CommandContext(ctx, c.bin, "serve", "--addr", addr)
	c.cmd.Env = append(os.Environ(), "TOOLGATE_DATA_DIR="+c.dataDir)
	c.cmd.Stdout, c.cmd.Stderr = io.Discard, &c.log
	if err := c.cmd.Start(); err != nil {
		return err
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(c.base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
	}
	return fmt.Errorf("console did not answer /healthz at %s", c.base)
}

// stop ends the console (SIGINT, its graceful shutdown).
func (c *console) stop() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(os.Interrupt)
		_ = c.cmd.Wait()
	}
}

// signIn signs email in through the login form and returns a client holding
// the session and CSRF cookies, and the CSRF token.
func (c *console) signIn(email, password string) (*http.Client, string, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, "", err
	}
	cl := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Get(c.base + "/login")
	if err != nil {
		return nil, "", err
	}
	resp.Body.Close()
	csrf := c.cookie(cl, "toolgate_csrf")
	resp, err = cl.PostForm(c.base+"/login", url.Values{"email": {email}, "password": {password}, "_csrf": {csrf}})
	if err != nil {
		return nil, "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || c.cookie(cl, "toolgate_session") == "" {
		return nil, "", fmt.Errorf("sign-in of %s: status %d", email, resp.StatusCode)
	}
	return cl, csrf, nil
}

func (c *console) cookie(cl *http.Client, name string) string {
	u, _ := url.Parse(c.base)
	for _, ck := range cl.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// post sends a form as a signed-in client and wants a 2xx or 3xx.
func (c *console) post(cl *http.Client, csrf, path string, form url.Values) error {
	form.Set("_csrf", csrf)
	resp, err := cl.PostForm(c.base+path, form)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return fmt.Errorf("POST %s: status %d: %.300s", path, resp.StatusCode, body)
	}
	return nil
}
