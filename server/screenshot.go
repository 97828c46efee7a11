package server

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/browser"
)

// The parameters of the screenshot target (selector is dom's).
var (
	fullPageParam = newParam[bool]("full_page", "capped height")
	formatParam   = newParam[string]("format", "").oneOf("jpeg", "png")
	maxWidthParam = newParam[int]("max_width", "default 1024").between(browser.MinShotWidth, browser.MaxShotWidth)
)

// shotTimeout bounds a screenshot: a full page is several captures.
func shotTimeout(p browser.ShotParams) time.Duration {
	if p.FullPage {
		return 30 * time.Second
	}
	return domTimeout
}

// screenshot returns the image as MCP image content with one text
// line; every call, taken or refused, is an audit line.
func (lp *livePage) screenshot(ctx context.Context, a args) (v any, err error) {
	var shot browser.Shot
	defer func() {
		line := ""
		if err == nil {
			line = shot.Line()
		}
		lp.trail.mode(ctx, "analyze", "screenshot", line, err)
	}()
	p := browser.ShotParams{
		Selector: selectorParam.get(a),
		FullPage: fullPageParam.get(a),
		Format:   formatParam.get(a),
		MaxWidth: maxWidthParam.get(a),
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	var data string
	shot, data, err = lp.takeShot(ctx, p, queryTabParam.get(a))
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		mcp.NewTextContent(shot.Caption()),
		mcp.NewImageContent(data, shot.MIME),
	}}, nil
}

// takeShot asks the extension for a screenshot of tab (0: the tracked
// one) and checks it; data is its base64.
func (lp *livePage) takeShot(ctx context.Context, p browser.ShotParams, tab int) (browser.Shot, string, error) {
	var ans browser.ShotAnswer
	resp, err := lp.ask(ctx, browser.KindShot, tab, p, shotTimeout(p), &ans)
	if err != nil {
		return browser.Shot{}, "", err
	}
	if ans.URL == "" {
		ans.URL = resp.URL
	}
	shot, err := ans.Decode(p)
	return shot, ans.Data, err
}
