// Package visual compares two screenshots of a page: the share of pixels
// that changed, the boxes around the regions that changed, and a
// difference image that shows them.
package visual

import (
	"cmp"
	"fmt"
	"image"
	"image/color"
	"slices"
)

// Tolerance is the largest per-channel difference (0–255) still counted as
// the same pixel: rendering noise, not a change.
const Tolerance = 24

// Cell is the side in pixels of the squares changed pixels are grouped
// in: changes in touching cells are one region.
const Cell = 16

// MaxBoxes bounds the regions reported, largest first.
const MaxBoxes = 20

// Box is a region in image pixels.
type Box struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Result says how much and where b differs from a.
type Result struct {
	Width         int     `json:"width"`
	Height        int     `json:"height"`
	ChangedPixels int     `json:"changed_pixels"`
	ChangedShare  float64 `json:"changed_percent"` // 0–100, two decimals
	Boxes         []Box   `json:"boxes,omitempty"`
	BoxesOmitted  int     `json:"boxes_omitted,omitempty"`
	SizeChanged   bool    `json:"size_changed,omitempty"`
	Summary       string  `json:"summary"`
}

// Compare diffs b against a over the larger of their sizes (a pixel only
// one of them has is changed) and returns the result and the difference
// image: b faded to grey, changed pixels red.
func Compare(a, b image.Image) (Result, *image.RGBA) {
	ab, bb := a.Bounds(), b.Bounds()
	w, h := max(ab.Dx(), bb.Dx()), max(ab.Dy(), bb.Dy())
	res := Result{Width: w, Height: h, SizeChanged: ab.Size() != bb.Size()}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	cw, ch := (w+Cell-1)/Cell, (h+Cell-1)/Cell
	cells := make([]Box, cw*ch) // per cell: the changed pixels' bounds, Width 0 when none
	for y := range h {
		for x := range w {
			pa, ina := at(a, x, y)
			pb, inb := at(b, x, y)
			if ina && inb && same(pa, pb) {
				g := uint8(191 + (uint32(pb.R)+uint32(pb.G)+uint32(pb.B))/12) // light grey of b
				out.SetRGBA(x, y, color.RGBA{g, g, g, 255})
				continue
			}
			res.ChangedPixels++
			out.SetRGBA(x, y, color.RGBA{255, 0, 0, 255})
			c := &cells[(y/Cell)*cw+x/Cell]
			if c.Width == 0 {
				*c = Box{x, y, 1, 1}
			} else {
				*c = union(*c, Box{x, y, 1, 1})
			}
		}
	}
	if w*h > 0 {
		res.ChangedShare = float64(int(float64(res.ChangedPixels)*10000/float64(w*h)+0.5)) / 100
	}
	res.Boxes = regions(cells, cw, ch)
	slices.SortStableFunc(res.Boxes, func(p, q Box) int { return cmp.Compare(q.Width*q.Height, p.Width*p.Height) })
	if len(res.Boxes) > MaxBoxes {
		res.BoxesOmitted = len(res.Boxes) - MaxBoxes
		res.Boxes = res.Boxes[:MaxBoxes]
	}
	res.Summary = res.summary()
	return res, out
}

// summary says the result in words.
func (r Result) summary() string {
	regions := fmt.Sprintf("%d region", len(r.Boxes)+r.BoxesOmitted)
	if len(r.Boxes)+r.BoxesOmitted != 1 {
		regions += "s"
	}
	switch {
	case r.ChangedPixels == 0:
		return "nothing visible changed"
	case r.SizeChanged:
		return fmt.Sprintf("the page's size changed; %.2f%% of the pixels differ", r.ChangedShare)
	case r.ChangedShare < 1:
		return fmt.Sprintf("a small change: %.2f%% of the pixels, in %s", r.ChangedShare, regions)
	case r.ChangedShare < 25:
		return fmt.Sprintf("a visible change: %.2f%% of the pixels, in %s", r.ChangedShare, regions)
	}
	return fmt.Sprintf("a large change: %.2f%% of the pixels, in %s", r.ChangedShare, regions)
}

// regions joins touching cells with changes (8 neighbours) into boxes.
func regions(cells []Box, cw, ch int) []Box {
	seen := make([]bool, len(cells))
	var out []Box
	var stack []int
	for i := range cells {
		if cells[i].Width == 0 || seen[i] {
			continue
		}
		box := cells[i]
		seen[i] = true
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			box = union(box, cells[j])
			cx, cy := j%cw, j/cw
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := cx+dx, cy+dy
					if nx < 0 || ny < 0 || nx >= cw || ny >= ch {
						continue
					}
					if k := ny*cw + nx; cells[k].Width > 0 && !seen[k] {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
		out = append(out, box)
	}
	return out
}

func union(p, q Box) Box {
	x0, y0 := min(p.X, q.X), min(p.Y, q.Y)
	x1, y1 := max(p.X+p.Width, q.X+q.Width), max(p.Y+p.Height, q.Y+q.Height)
	return Box{x0, y0, x1 - x0, y1 - y0}
}

func at(img image.Image, x, y int) (color.RGBA, bool) {
	b := img.Bounds()
	if x >= b.Dx() || y >= b.Dy() {
		return color.RGBA{}, false
	}
	r, g, bl, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}, true
}

func same(p, q color.RGBA) bool {
	d := func(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
	return max(d(p.R, q.R), d(p.G, q.G), d(p.B, q.B), d(p.A, q.A)) <= Tolerance
}
