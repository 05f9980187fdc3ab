package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// legendCheck runs in Chromium after the page has laid out: for every
// inline SVG it samples each data line (a coloured, unfilled path of three
// points or more) every 2 px on screen and reports each text box (legend
// entries, labels) a sample falls in, and each text that lies outside its
// SVG's box; then it replaces the page by the JSON of its findings.
const legendCheck = `<script>
window.addEventListener('load', function () {
  var out = {svgs: 0, lines: 0, texts: 0, overlaps: [], spills: []};
  document.querySelectorAll('svg').forEach(function (svg) {
    out.svgs++;
    var sb = svg.getBoundingClientRect();
    var texts = Array.prototype.map.call(svg.querySelectorAll('text'), function (t) {
      return {t: t.textContent, r: t.getBoundingClientRect()};
    });
    out.texts += texts.length;
    texts.forEach(function (x) {
      if (x.r.left < sb.left - 0.5 || x.r.right > sb.right + 0.5 || x.r.top < sb.top - 0.5 || x.r.bottom > sb.bottom + 0.5) out.spills.push(x.t + ' ' + JSON.stringify([Math.round(x.r.left), Math.round(x.r.top), Math.round(x.r.right), Math.round(x.r.bottom)]) + ' in ' + JSON.stringify([Math.round(sb.left), Math.round(sb.top), Math.round(sb.right), Math.round(sb.bottom)]));
    });
    svg.querySelectorAll('path').forEach(function (p) {
      var d = p.getAttribute('d') || '', cs = getComputedStyle(p);
      var m = /rgb\((\d+), (\d+), (\d+)\)/.exec(cs.stroke);
      if ((d.match(/L/g) || []).length < 2 || cs.fill !== 'none' || !m) return;
      if (m[1] === m[2] && m[2] === m[3]) return; // black and greys: axes, grid
      out.lines++;
      var len = p.getTotalLength(), ctm = p.getScreenCTM(), steps = Math.max(50, Math.ceil(len / 2));
      for (var i = 0; i <= steps; i++) {
        var q = p.getPointAtLength(len * i / steps).matrixTransform(ctm);
        texts.forEach(function (x) {
          if (q.x > x.r.left && q.x < x.r.right && q.y > x.r.top && q.y < x.r.bottom && out.overlaps.indexOf(x.t) < 0) out.overlaps.push(x.t);
        });
      }
    });
  });
  document.body.innerHTML = '<pre id="candor-check">' + JSON.stringify(out).replace(/</g, '\\u003c') + '</pre>';
});
</script>`

// needChromium skips a test without Chromium, or with -short.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s not found: install the Debian package chromium to run this test", chromiumPath)
	}
	if testing.Short() {
		t.Skip("-short: skipping the browser test")
	}
}

type legendFindings struct {
	SVGs     int      `json:"svgs"`
	Lines    int      `json:"lines"`
	Texts    int      `json:"texts"`
	Overlaps []string `json:"overlaps"`
	Spills   []string `json:"spills"`
}

// checkLegends loads page (with the check script added) in headless
// Chromium and returns what the script found.
func checkLegends(t *testing.T, html []byte) legendFindings {
	t.Helper()
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	html = bytes.Replace(html, []byte("</body>"), []byte(legendCheck+"</body>"), 1)
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, log := chromium(t, dir, "--virtual-time-budget=10000", "--dump-dom", "file://"+page)
	out := bytes.NewBufferString(stdout)
	m := regexp.MustCompile(`<pre id="candor-check">(.*?)</pre>`).FindSubmatch(out.Bytes())
	if m == nil {
		t.Fatalf("the check did not run; page:\n%s\n%s", tail(out.String(), 10), tail(log, 10))
	}
	var f legendFindings
	if err := json.Unmarshal(bytes.ReplaceAll(m[1], []byte("&amp;"), []byte("&")), &f); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	return f
}

// No legend entry or label of a report's charts covers a data line, and no
// text spills out of its chart, as Chromium lays the page out (the
// rendered boxes of the SVG's texts against points sampled along every
// line). A page whose text sits on a line is caught.
func TestChartLegendsClearOfLinesInChromium(t *testing.T) {
	needChromium(t)
	var buf bytes.Buffer
	if err := HTML(&buf, loadFixtures(t)); err != nil {
		t.Fatal(err)
	}
	f := checkLegends(t, buf.Bytes())
	t.Logf("%d charts, %d data lines, %d texts", f.SVGs, f.Lines, f.Texts)
	if f.SVGs < 3 || f.Lines < 3 || f.Texts < 20 {
		t.Errorf("too little checked: %+v", f)
	}
	if len(f.Overlaps) > 0 {
		t.Errorf("texts over data lines: %q", f.Overlaps)
	}
	if len(f.Spills) > 0 {
		t.Errorf("texts outside their chart: %q", f.Spills)
	}

	// The control: a legend text drawn across a line, and one past the
	// picture's right edge.
	control := `<!DOCTYPE html><html><body><svg width="200pt" height="100pt" viewBox="0 0 200 100" xmlns="http://www.w3.org/2000/svg">
<path d="M0,50L100,50L200,50" style="fill:none;stroke:#1F77B4;stroke-width:1" />
<text x="80" y="53" style="font-size:10px">legend</text><text x="190" y="20" style="font-size:10px">spilled</text></svg></body></html>`
	c := checkLegends(t, []byte(control))
	if strings.Join(c.Overlaps, ",") != "legend" || len(c.Spills) != 1 || !strings.HasPrefix(c.Spills[0], "spilled ") {
		t.Errorf("the control page was not caught: %+v", c)
	}
}
