package policy

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// formatDuration renders a duration the way the console shows it: "300 ms"
// below a second, otherwise seconds with at most one decimal ("16.3 s").
func formatDuration(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	if ms < 1000 {
		return strconv.FormatFloat(math.Round(ms), 'f', -1, 64) + " ms"
	}
	return strconv.FormatFloat(math.Round(ms/100)/10, 'f', -1, 64) + " s"
}

// formatRange renders a wait range: "150–300 ms", "0.5–1 s", "600 ms–1.2 s",
// or a single value when both ends are equal.
func formatRange(lo, hi time.Duration) string {
	if lo == hi {
		return formatDuration(hi)
	}
	if hi < time.Second {
		l := formatDuration(lo)
		return l[:len(l)-3] + "–" + formatDuration(hi)
	}
	if lo >= time.Second {
		l := formatDuration(lo)
		return l[:len(l)-2] + "–" + formatDuration(hi)
	}
	return formatDuration(lo) + "–" + formatDuration(hi)
}

// formatBytes renders a size as KiB or MiB when it is a whole number of
// them, bytes otherwise.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
