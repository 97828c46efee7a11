package server

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// tabClaim is the tab a relayed session owned (interact new_tab) or
// tracked (configure track) on the server before a takeover: the relay
// gives it to the next server when it reconnects, so that the session
// keeps its tab and no other session may act on it meanwhile.
type tabClaim struct {
	Tab   int
	Owned bool
	Agent string // the client's name, as its initialize said
}

// agentMax bounds the client name a claim carries.
const agentMax = 100

// query is how the relay says the claim on the MCP endpoint's URL.
func (c tabClaim) query() string {
	if c.Tab <= 0 {
		return ""
	}
	v := url.Values{"tab": {strconv.Itoa(c.Tab)}, "agent": {c.Agent}}
	if c.Owned {
		v.Set("owned", "1")
	}
	return "?" + v.Encode()
}

// claimOf reads a claim from the endpoint's query; anything else is none.
func claimOf(q url.Values) tabClaim {
	tab, err := strconv.Atoi(q.Get("tab"))
	if err != nil || tab <= 0 {
		return tabClaim{}
	}
	agent := q.Get("agent")
	if len(agent) > agentMax {
		agent = agent[:agentMax]
	}
	return tabClaim{Tab: tab, Owned: q.Get("owned") == "1", Agent: agent}
}

// claim is what the relay gives the next server.
func (r *relay) claim() tabClaim {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.tab
	if c.Tab > 0 && c.Agent == "" {
		c.Agent = r.agent
	}
	return c
}

// noteTab keeps the tab a successful new_tab, close_tab or configure
// track left the session with, and the name its client gave in the call;
// the caller holds mu. The answer's text is read only for those calls.
func (r *relay) noteTab(call, answer envelope, m []byte) {
	action := call.Params.Arguments["action"]
	mine := call.Params.Name == "interact" && (action == "new_tab" || action == "close_tab") ||
		call.Params.Name == "configure" && action == "track"
	if !mine || answer.Result == nil || answer.Result.IsError {
		return
	}
	var text struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	var out struct {
		TabID int `json:"tab_id"`
		Tab   int `json:"tab"`
	}
	if json.Unmarshal(m, &text) != nil || len(text.Result.Content) == 0 ||
		json.NewDecoder(strings.NewReader(text.Result.Content[0].Text)).Decode(&out) != nil {
		return
	}
	who := call.Params.Meta.ClientInfo.Name
	switch {
	case action == "new_tab" && out.TabID > 0:
		r.tab = tabClaim{Tab: out.TabID, Owned: true, Agent: who}
	case action == "close_tab" && out.TabID == r.tab.Tab && r.tab.Owned:
		r.tab = tabClaim{}
	case action == "track":
		r.tab = tabClaim{Tab: out.Tab, Agent: who}
	}
}
