package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const chromiumPath = "/usr/bin/chromium"

// TestReportHTMLInChromium opens the HTML report of the fixtures in headless
// Chromium, offline, takes a screenshot and checks that the page drew
// something (a fair share of non-white pixels) and that Chromium reported no
// console error. Chromium comes from the Debian package "chromium".
func TestReportHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s not found: install the Debian package chromium (apt-get install -y chromium) to run this test", chromiumPath)
	}
	if testing.Short() {
		t.Skip("-short: skipping the browser test")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if _, err := WriteFile(page, loadFixtures(t), "html"); err != nil {
		t.Fatal(err)
	}
	shot, stderr := runChromium(t, page)
	if msgs := consoleMessages(stderr); len(msgs) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(msgs, "\n"))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, tail(stderr, 30))
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 1500 {
		t.Errorf("screenshot %v, want about 1200×2000", b)
	}
	frac, colour := nonWhite(img)
	t.Logf("screenshot %dx%d, %.1f%% non-white pixels, %.2f%% coloured", b.Dx(), b.Dy(), 100*frac, 100*colour)
	// Text, tables and charts cover several percent of the page; a blank
	// or error page stays well below 1%.
	if frac < 0.02 {
		t.Errorf("the page looks blank: %.2f%% non-white pixels", 100*frac)
	}
	// Text and tables are black and grey; the charts' lines are coloured.
	if colour < 0.0005 {
		t.Errorf("no chart drawn in the first screen: %.3f%% coloured pixels", 100*colour)
	}
}

// runChromium screenshots page and returns the PNG's path and Chromium's
// log.
func runChromium(t *testing.T, page string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	shot := filepath.Join(dir, "out.png")
	_, log := chromium(t, dir, "--screenshot="+shot, "--enable-logging=stderr", "--v=0", "file://"+page)
	return shot, log
}

// chromium runs headless Chromium in dir (its profile there) with args
// after the common ones, and returns its standard output and its log.
func chromium(t *testing.T, dir string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1200,2000"}, args...)...)
	cmd.Dir = dir
	var out, log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(log.String()+out.String(), 30))
	}
	return out.String(), log.String() + out.String()
}

// consoleMessages are the page's console lines and uncaught errors in
// Chromium's log ("INFO:CONSOLE(1)] ..." or "ERROR:CONSOLE..."): our report
// has no script, so any is a failure.
func consoleMessages(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") {
			out = append(out, l)
		}
	}
	return out
}

// The console check catches what it is meant to: a page with a script
// error.
func TestReportChromiumConsoleCheck(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s not found: install the Debian package chromium to run this test", chromiumPath)
	}
	if testing.Short() {
		t.Skip("-short: skipping the browser test")
	}
	page := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><p>x</p><script>notDefined();</script></body></html>`), 0o644)
	_, log := runChromium(t, page)
	if msgs := consoleMessages(log); len(msgs) == 0 || !strings.Contains(strings.Join(msgs, ""), "Uncaught") {
		t.Errorf("the script error was not seen in Chromium's log:\n%s", tail(log, 20))
	}
}

// nonWhite is the fraction of pixels that are not (nearly) white, and the
// fraction that are clearly coloured (not a shade of grey).
func nonWhite(img image.Image) (float64, float64) {
	b := img.Bounds()
	var n, coloured, total int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
			hi, lo := max(r, g, bl), min(r, g, bl)
			if hi-lo > 0x4000 {
				coloured++
			}
			total++
		}
	}
	return float64(n) / float64(total), float64(coloured) / float64(total)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
