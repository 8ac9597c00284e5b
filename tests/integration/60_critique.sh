#!/usr/bin/env bash
# 60_critique.sh: the critique graph end to end: offline reports of the demo's eventful and uneventful
# cases, a record-gap case and pasted text; every node's prompt and answer with the fake LLM; the web pages.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP
export ASKQL=${ASKQL:-$TOP/bin/askql}
export FAKE_LLM=${FAKE_LLM:-$TOP/tests/lib/fake_llm.py}
export APPDB=${APPDB:-askql} DEMODB=${DEMODB:-demo}
export BASE_URL=${BASE_URL:-}
exec python3 - "$@" <<'PY'
import http.cookiejar, json, os, re, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request

ASKQL, FAKE = os.environ["ASKQL"], os.environ["FAKE_LLM"]
n = 0
def tap(ok, desc, diag=""):
    global n
    n += 1
    print(("ok %d - %s" if ok else "not ok %d - %s") % (n, desc))
    if not ok and diag:
        print("# " + str(diag)[:600].replace("\n", "\n# "))
    sys.stdout.flush()

def sql(db, q):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-d", db, "-c", q], capture_output=True, text=True)
    return r.stdout.strip()

def critique(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.time()
    r = subprocess.run([ASKQL, "critique"] + args + ["--json"], capture_output=True, text=True, env=e, timeout=60)
    dt = time.time() - t0
    try:
        return json.loads(r.stdout), r, dt
    except ValueError:
        return None, r, dt

def nodes(rep):
    return [(x["name"], x["kind"], x["status"], x.get("reason", "")) for x in rep["nodes"]]

def status(rep, name, kind="node"):
    s = [x for x in rep["nodes"] if x["name"] == name and x["kind"] == kind]
    return s[-1]["status"] if s else None

MAIN = ["chart_structurer", "evidence", "diagnosis", "treatment", "evidence_2nd", "intervention_checker",
        "agent_router", "risk_factor", "process_contributor", "run_conditional_agents", "preprocess", "router",
        "run_tools", "critique_builder", "verifier", "critic", "run_alternative_explanation"]
TOOLS = ["timeline", "evidence", "record_gaps", "behavior_topk_direct_compare", "lens_severity_risk",
         "lens_diagnostic_consistency", "lens_monitoring_response"]
OFF = {"ASKQL_LLM_PROVIDER": "builtin"}

# ---------- offline: the eventful case (hypotension + high lactate) ----------
rep, r, dt = critique(["--case", "1", "--offline"], OFF)
tap(rep is not None and r.returncode == 0, "offline critique of case 1 gives a JSON report", r.stderr)
if rep is None:
    sys.exit(1)
chart = rep["structured_chart"]
f = {x["param"]: x for x in chart["findings"]}
# the expected values come from the database itself
minsbp = sql(os.environ["DEMODB"], "SELECT min(sbp), to_char((array_agg(dt ORDER BY sbp, dt))[1], 'HH24:MI') FROM vital_data_table WHERE caseid = 1")
mv, mt = minsbp.split("|")
tap("sbp" in f and f["sbp"]["direction"] == "low" and float(f["sbp"]["extreme"]) == float(mv) and f["sbp"]["extreme_t"] == mt,
    "case 1: hypotension named with its lowest SBP %s at %s" % (mv, mt), f.get("sbp"))
lac = sql(os.environ["DEMODB"], "SELECT max(result), to_char((array_agg(dt ORDER BY result DESC))[1], 'HH24:MI') FROM lab_data_table WHERE caseid = 1 AND name = 'lac'")
lv, lt = lac.split("|")
tap("lac" in f and f["lac"]["direction"] == "high" and float(f["lac"]["extreme"]) == float(lv) and f["lac"]["extreme_t"] == lt,
    "case 1: high lactate named with value %s at %s" % (lv, lt), f.get("lac"))
tap(str(mv) in rep["summary"] or "lac" in rep["summary"], "case 1: summary names the abnormal findings", rep["summary"])
phe = [m for m in chart["procedures_performed"] if "phenylephrine" in m["drug"].lower()]
first_phe = sql(os.environ["DEMODB"], "SELECT to_char(min(dt), 'HH24:MI') FROM medication_data_table WHERE caseid = 1 AND drug ILIKE '%phenylephrine%'")
tap(len(phe) > 0 and phe[0]["t"] == first_phe and phe[0]["class"] == "vasopressor",
    "case 1: phenylephrine found in the medication records at %s" % first_phe, phe[:1])
resp = [x for x in rep["treatment_analysis"]["responses"] if x["finding"] == f.get("sbp", {}).get("id")]
tap(resp and resp[0]["status"] == "treated" and resp[0]["interventions"][0]["class"] == "vasopressor",
    "case 1: the hypotension is answered by a vasopressor, with its delay", resp)
rec = [x for x in rep["intervention_coverage"]["reconciled"] if x["finding"] == f.get("sbp", {}).get("id")]
tap(rec and re.search(r"\d+ min", rec[0]["text"]) is not None, "case 1: intervention_checker states the time to treatment", rec)
sim = rep["similar_cases"]
tap(len(sim) >= 1 and all("death_inhosp" in s and "icu_days" in s for s in sim),
    "case 1: similar cases from the database with their outcomes (%d)" % len(sim), sim[:1])
opt = sql(os.environ["DEMODB"], "SELECT optype FROM clinical_data_table WHERE caseid = 1")
tap(all(s.get("optype") == opt for s in sim), "case 1: similar cases share the operation type", [s.get("optype") for s in sim])
tap(rep["solutions"] is not None and status(rep, "verifier") == "ok", "case 1: verifier ran with similar cases")
kb = rep["evidence"]["items"]
tap(len(kb) > 0 and all("source" in k and "score" in k for k in kb) and any("hypotension" in k["source"] or "lactate" in k["source"] for k in kb),
    "case 1: knowledge-base evidence with source and score", [k["source"] for k in kb])
tap(rep["evidence"]["remote"]["status"] == "off", "case 1: remote literature endpoint off by default, report still made")
pts = rep["critique"]["points"]
tap(any(p["category"] == "abnormal_finding" and p["evidence"] and p["refs"] for p in pts),
    "case 1: critique points carry evidence spans and row references", pts[:1])
names = [x[0] for x in nodes(rep)]
tap(all(m in names for m in MAIN) and all(t in names for t in TOOLS), "case 1: every node and tool of the seed is recorded",
    set(MAIN + TOOLS) - set(names))
tap("risk_factor" in rep["selected_agents"] and status(rep, "risk_factor") == "ok",
    "case 1: risk_factor selected and run for a 74-year-old", rep["selected_agents"])
tap(status(rep, "timeline", "tool") == "skipped" and "structured_chart" in [x for x in nodes(rep) if x[0] == "timeline"][0][3],
    "case 1: timeline/evidence tools skipped because the structured chart is present")
run_id, report_id = int(rep["run_id"]), int(rep["report_id"])
steps = sql(os.environ["APPDB"], "SELECT count(*) FROM askql.steps WHERE run_id = %d" % run_id)
kind = sql(os.environ["APPDB"], "SELECT kind || '/' || status FROM askql.runs WHERE id = %d" % run_id)
tap(run_id > 0 and steps == str(len(rep["nodes"])) and kind == "critique/ok",
    "case 1: run (kind critique) with one step per node/tool (%s steps)" % steps, kind)
stored = sql(os.environ["APPDB"], "SELECT body->>'case_ref' FROM askql.reports WHERE id = %d" % report_id)
tap(stored == "case 1", "case 1: report stored in askql.reports", stored)
skipped = sql(os.environ["APPDB"], "SELECT count(*) FROM askql.steps WHERE run_id = %d AND status = 'skipped' AND output->>'reason' <> ''" % run_id)
tap(int(skipped or 0) >= 2, "case 1: skipped steps are stored with their reason (%s)" % skipped)

# ---------- offline: the uneventful case ----------
rep2, r, _ = critique(["--case", "2", "--offline"], OFF)
ok = rep2 is not None
tap(ok and rep2["structured_chart"]["findings"] == [], "case 2: no abnormal finding invented",
    rep2 and rep2["structured_chart"]["findings"])
tap(ok and rep2["critique"]["points"] == [] and "No critique points" in rep2["critique"]["summary"],
    "case 2: no critique point", rep2 and rep2["critique"]["points"])
tap(ok and status(rep2, "risk_factor") == "skipped" and status(rep2, "process_contributor") == "skipped",
    "case 2: conditional agents not selected, recorded as skipped", rep2 and nodes(rep2))
tap(ok and all(status(rep2, t, "tool") == "skipped" for t in ["lens_severity_risk", "lens_diagnostic_consistency", "lens_monitoring_response"]),
    "case 2: no lens tool selected")
tap(ok and status(rep2, "evidence_2nd") == "skipped", "case 2: evidence_2nd skipped: nothing to search for")
tap(ok and rep2["treatment_analysis"]["responses"] == [] and rep2["alternative_explanations"].get("summary") == "No abnormal finding to explain.",
    "case 2: treatment and alternatives say nothing is wrong")

# ---------- a case with a record gap ----------
gapcase = sql(os.environ["DEMODB"], "SELECT caseid FROM (SELECT caseid, dt - lag(dt) OVER (PARTITION BY caseid ORDER BY dt) g "
              "FROM vital_data_table WHERE caseid < 2000) x GROUP BY caseid HAVING max(g) >= interval '60 min' ORDER BY caseid LIMIT 1")
if gapcase:
    gs = sql(os.environ["DEMODB"], "SELECT to_char(dt - g, 'HH24:MI') || '|' || to_char(dt, 'HH24:MI') FROM (SELECT dt, dt - lag(dt) OVER (ORDER BY dt) g "
             "FROM vital_data_table WHERE caseid = %s) x ORDER BY g DESC NULLS LAST LIMIT 1" % gapcase)
    a, b = gs.split("|")
    rep3, r, _ = critique(["--case", gapcase, "--offline"], OFF)
    gaps = rep3["critique"]["preprocessing"]["record_gaps"]["gaps"] if rep3 else []
    tap(any(g["start"] == a and g["end"] == b for g in gaps), "case %s: record gap %s-%s found" % (gapcase, a, b), gaps)
    tap(rep3 and any(p["category"] == "record_gap" and a in p["text"] for p in rep3["critique"]["points"]),
        "case %s: the gap is a critique point" % gapcase)
    tap(rep3 and "process_contributor" in rep3["selected_agents"], "case %s: a record gap selects process_contributor" % gapcase,
        rep3 and rep3["selected_agents"])
else:
    tap(False, "a demo case with a 60-minute vitals gap exists")

# ---------- coded diagnoses against the preoperative flags ----------
inc = sql(os.environ["DEMODB"], "SELECT c.caseid FROM clinical_data_table c JOIN diagnosis_table d ON d.subject_id = c.subjectid "
          "WHERE c.preop_htn = 0 AND d.code LIKE 'I10%' ORDER BY 1 LIMIT 1")
if inc:
    rep9, r, _ = critique(["--case", inc, "--offline"], OFF)
    tap(rep9 is not None and any(p["category"] == "documentation" and "preop_htn = 0" in p["text"] for p in rep9["critique"]["points"]),
        "case %s: coded hypertension with preop_htn = 0 is a documentation point" % inc)
tap(not rep2["diagnosis_analysis"]["inconsistencies"], "case 2: no documentation inconsistency invented")

# ---------- pasted text (Korean) ----------
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as tf:
    tf.write("78세 남자, ASA 3, 고혈압.\n진단: 위암\n10:20 혈압 78/40, 심박수 118.\n10:25 페닐에프린 100 mcg 투여.\n10:40 젖산 4.6 mmol/L.\n")
    tpath = tf.name
rep4, r, _ = critique(["--text", tpath, "--offline"], OFF)
os.unlink(tpath)
f4 = {x["param"]: x for x in rep4["structured_chart"]["findings"]} if rep4 else {}
tap(rep4 is not None and f4.get("sbp", {}).get("extreme") == 78 and f4.get("lac", {}).get("extreme") == 4.6,
    "Korean chart text: hypotension 78 and lactate 4.6 found", r.stderr or f4)
tap(rep4 is not None and any(m["class"] == "vasopressor" and m["t"] == "10:25" for m in rep4["structured_chart"]["procedures_performed"]),
    "Korean chart text: 페닐에프린 at 10:25 is a vasopressor")
tap(rep4 is not None and rep4["similar_cases"] == [] and status(rep4, "verifier") == "skipped",
    "pasted text: no similar cases, verifier skipped with a reason")

# ---------- a failing remote literature endpoint never stops the report ----------
rep5, r, _ = critique(["--case", "2", "--offline"], dict(OFF, ASKQL_CRITIQUE_PUBMED_URL="http://127.0.0.1:9/esearch"))
tap(rep5 is not None and rep5["evidence"]["remote"]["status"] == "error" and status(rep5, "evidence") == "degraded",
    "remote endpoint down: evidence degraded, report still made", r.stderr[-300:])

# ---------- with the fake LLM ----------
work = tempfile.mkdtemp(prefix="askql-60.")
req_log, port_file = os.path.join(work, "req.jsonl"), os.path.join(work, "port")
fake = subprocess.Popen(["python3", FAKE, "--requests", req_log, "--port-file", port_file])
try:
    for _ in range(50):
        if os.path.exists(port_file):
            break
        time.sleep(0.1)
    base = "http://127.0.0.1:%s" % open(port_file).read().strip()
    env = {"ASKQL_LLM_PROVIDER": "openai", "ASKQL_LLM_BASE_URL": base + "/v1", "ASKQL_LLM_API_KEY": "sk-test",
           "ASKQL_LLM_RETRIES": "0", "ASKQL_LLM_TIMEOUT_MS": "10000"}

    def script(entries):
        rq = urllib.request.Request(base + "/__script", data=json.dumps(entries).encode(), method="POST")
        urllib.request.urlopen(rq).read()
        open(req_log, "w").close()

    def requests():
        return [json.loads(l) for l in open(req_log) if l.strip()]

    def node_of(req):
        m = re.match(r"NODE: critique_(\w+)", req["body"]["messages"][0]["content"])
        return m.group(1) if m else None

    def ans(node, extra=None, delay=0):
        d = {"summary": "ANS-" + node}
        d.update(extra or {})
        e = {"text": json.dumps(d)}
        if delay:
            e["delay_ms"] = delay
        return e

    order = ["chart_structurer", "evidence", "diagnosis", "treatment", "evidence_2nd", "intervention_checker",
             "agent_router", "risk_factor", "process_contributor", "router", "critique_builder", "verifier",
             "alternative_explanation"]
    entries = []
    for nd in order:
        if nd == "agent_router":
            entries.append(ans(nd, {"selected_agents": ["risk_factor", "process_contributor"]}))
        elif nd == "router":
            entries.append(ans(nd, {"selected_tools": ["lens_severity_risk", "lens_monitoring_response"]}))
        elif nd in ("diagnosis", "treatment"):
            entries.append(ans(nd, delay=1200))
        else:
            entries.append(ans(nd))
    script(entries)
    rep6, r, dt6 = critique(["--case", "1"], env)
    reqs = requests()
    sent = [node_of(x) for x in reqs]
    tap(rep6 is not None and sorted(sent) == sorted(order), "fake LLM: every node's prompt was sent (%d requests)" % len(sent),
        (sent, r.stderr[-400:]))
    tap(all("payload" not in x["body"]["messages"][1]["content"][:200] and "{" in x["body"]["messages"][1]["content"] for x in reqs),
        "fake LLM: each prompt carries the node's case data")

    def section(rep, nd):
        m = {"chart_structurer": lambda: rep["structured_chart"]["llm"], "evidence": lambda: rep["evidence"]["llm"],
             "diagnosis": lambda: rep["diagnosis_analysis"]["llm"], "treatment": lambda: rep["treatment_analysis"]["llm"],
             "evidence_2nd": lambda: rep["evidence_2nd"]["llm"], "intervention_checker": lambda: rep["intervention_coverage"]["llm"],
             "agent_router": lambda: [x for x in rep["nodes"] if x["name"] == "agent_router"][0]["detail"]["llm"],
             "risk_factor": lambda: rep["risk_factor_analysis"]["llm"],
             "process_contributor": lambda: rep["process_contributor_analysis"]["llm"],
             "router": lambda: [x for x in rep["nodes"] if x["name"] == "router"][0]["detail"]["llm"],
             "critique_builder": lambda: rep["critique"]["llm"], "verifier": lambda: rep["solutions"]["llm"],
             "alternative_explanation": lambda: rep["alternative_explanations"]["llm"]}
        try:
            return m[nd]().get("summary")
        except (KeyError, TypeError, IndexError, AttributeError):
            return None

    # request n got script entry n (the two concurrent ones may have crossed on the wire)
    if rep6:
        wrong = []
        for i, x in enumerate(reqs):
            nd, want = node_of(x), json.loads(entries[i]["text"])["summary"]
            got = section(rep6, nd)
            if got != want and not (nd in ("diagnosis", "treatment") and got in ("ANS-diagnosis", "ANS-treatment")):
                wrong.append((nd, want, got))
        tap(not wrong, "fake LLM: each answer lands in its node's report section", wrong)
        tap({section(rep6, "diagnosis"), section(rep6, "treatment")} == {"ANS-diagnosis", "ANS-treatment"},
            "fake LLM: diagnosis and treatment each got one answer")
        tap(dt6 < 2.3, "fake LLM: diagnosis and treatment in flight together (2 x 1.2 s delays, run took %.2f s)" % dt6)
        tap(rep6["selected_agents"] == ["risk_factor", "process_contributor"] and status(rep6, "process_contributor") == "ok",
            "fake LLM: agent_router's selected_agents decide the conditional agents", rep6["selected_agents"])
        tap(rep6["critique"]["selected_tools"] == ["lens_severity_risk", "lens_monitoring_response"]
            and status(rep6, "lens_diagnostic_consistency", "tool") == "skipped" and status(rep6, "lens_severity_risk", "tool") == "ok",
            "fake LLM: the critic router's selected_tools decide run_tools", rep6["critique"]["selected_tools"])
        tap(rep6["mode"] == "llm" and all(x["llm"] for x in rep6["nodes"] if x["name"] in order and x["kind"] == "node"),
            "fake LLM: every LLM node is marked as having used the LLM")
        prompts = sql(os.environ["APPDB"], "SELECT count(*) FROM askql.steps WHERE run_id = %d AND prompt LIKE '%%NODE: critique_%%' AND raw LIKE '%%ANS-%%'" % int(rep6["run_id"]))
        tap(prompts == str(len(order)), "fake LLM: prompt and raw answer stored on each LLM step (%s)" % prompts)

    # the router selects nothing: neither conditional agent runs and their prompts are never sent
    entries = [ans(nd, {"selected_agents": []} if nd == "agent_router" else {"selected_tools": []} if nd == "router" else None)
               for nd in order if nd not in ("risk_factor", "process_contributor")]
    script(entries)
    rep7, r, _ = critique(["--case", "1"], env)
    sent = [node_of(x) for x in requests()]
    tap(rep7 is not None and "risk_factor" not in sent and "process_contributor" not in sent
        and status(rep7, "risk_factor") == "skipped" and status(rep7, "process_contributor") == "skipped",
        "fake LLM: unselected agents are skipped and get no prompt", sent)
    tap(rep7 is not None and all(status(rep7, t, "tool") == "skipped" for t in ["lens_severity_risk", "lens_diagnostic_consistency", "lens_monitoring_response"]),
        "fake LLM: no tool selected, none run")

    # llm_data_policy (docs/llm-policy.md): a case's chart is rows of the target; under values it never goes out
    script([ans(nd) for nd in order])
    rep10, r, _ = critique(["--case", "1"], dict(env, ASKQL_LLM_DATA_POLICY="values"))
    tap(rep10 is not None and not requests() and rep10["structured_chart"]["findings"],
        "llm_data_policy values: a case's critique runs offline, no request sent (%d)" % len(requests()), r.stderr[-300:])

    # the LLM fails: every node keeps its deterministic result
    script([{"status": 500, "body": {"error": {"message": "down"}}, "repeat": True}])
    rep8, r, _ = critique(["--case", "1"], env)
    tap(rep8 is not None and rep8["structured_chart"]["findings"] and status(rep8, "diagnosis") == "degraded",
        "LLM down: report made from the deterministic nodes, nodes marked degraded", r.stderr[-300:])
finally:
    fake.terminate()
    fake.wait()

# ---------- the web pages ----------
if os.environ.get("BASE_URL") and os.environ.get("ADMIN_USER"):
    B = os.environ["BASE_URL"]
    cj = http.cookiejar.CookieJar()
    op = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(cj))
    def get(path):
        with op.open(B + path) as resp:
            return resp.status, dict(resp.headers), resp.read().decode("utf-8", "replace"), resp.geturl()
    def post(path, data):
        with op.open(B + path, data=urllib.parse.urlencode(data).encode()) as resp:
            return resp.status, dict(resp.headers), resp.read().decode("utf-8", "replace"), resp.geturl()
    def csrf(html):
        m = re.search(r'name="csrf" value="([^"]+)"', html)
        return m.group(1) if m else ""
    try:
        _, _, html, _ = get("/signin")
        post("/signin", {"csrf": csrf(html), "name": os.environ["ADMIN_USER"], "password": os.environ["ADMIN_PASS"], "next": "/reports"})
        st, _, html, _ = get("/reports")
        tap(st == 200 and "critique-form" in html, "web: /reports lists reports and offers the form")
        st, _, page, url = post("/reports", {"csrf": csrf(html), "case": "1"})
        m = re.search(r"/reports/(\d+)$", url)
        tap(st == 200 and m is not None and "<svg" in page and 'id="critique"' in page, "web: POST /reports runs the critique and shows the report", url)
        if m:
            rid = m.group(1)
            st, h, body, _ = get("/reports/%s?format=json" % rid)
            j = json.loads(body)
            tap(st == 200 and j.get("report_id") == int(rid) and j["structured_chart"]["findings"], "web: JSON download")
            st, h, body, _ = get("/reports/%s?format=html" % rid)
            tap(st == 200 and "attachment" in h.get("Content-Disposition", "") and body.startswith("<!doctype html>")
                and "<svg" in body and "/static/" not in body, "web: standalone HTML download (no external resources)")
            st, _, html, _ = get("/reports")
            tap('href="/reports/%s"' % rid in html, "web: the new report is listed")
            with open(os.path.join(os.environ.get("TOP", "."), "build", "report-id"), "w") as fh:
                fh.write(rid)
            # the chart the critique read is data access: one audit row per statement, the admin's
            run = sql("askql", "SELECT run_id FROM askql.reports WHERE id = %s" % rid)
            reads = sql("askql", "SELECT count(*) FROM askql.access_audit WHERE run_id = %s AND kind = 'run' "
                                 "AND user_name = '%s' AND ok AND row_count >= 0" % (run or 0, os.environ["ADMIN_USER"]))
            tap(bool(run) and int(reads or 0) >= 3, "web: the case critique's reads of the chart are in the access audit (%s rows)" % reads,
                sql("askql", "SELECT kind, user_name, row_count FROM askql.access_audit WHERE run_id = %s" % (run or 0)))
        # a user below the identified level gets no case's chart through a critique
        tname = sql("askql", "SELECT name FROM askql.targets WHERE is_default")
        uname = "crit_lim_%d" % os.getpid()
        with tempfile.NamedTemporaryFile("w", delete=False) as pw:
            pw.write("crit-password-%d\n" % os.getpid())
        try:
            subprocess.run([ASKQL, "user", "add", uname, "analyst", "--password-file", pw.name], capture_output=True)
            subprocess.run([ASKQL, "user", "level", uname, tname, "limited"], capture_output=True)
            before = sql("askql", "SELECT count(*) FROM askql.reports")
            cj.clear()
            _, _, html, _ = get("/signin")
            post("/signin", {"csrf": csrf(html), "name": uname, "password": "crit-password-%d" % os.getpid(), "next": "/reports"})
            st, _, html, _ = get("/reports")
            try:
                st, _, page, url = post("/reports", {"csrf": csrf(html), "case": "1"})
            except urllib.error.HTTPError as he:
                st, page, url = he.code, he.read().decode("utf-8", "replace"), he.geturl()
            tap(st == 403 and not re.search(r"/reports/\d+$", url) and sql("askql", "SELECT count(*) FROM askql.reports") == before
                and ("access level" in page or "접근 등급" in page),
                "web: a limited user's case critique is refused with the access level named, and no report made", url + " " + page[-400:])
        finally:
            sql("askql", "DELETE FROM askql.users WHERE name = '%s'" % uname)
            os.unlink(pw.name)
    except Exception as e:  # noqa: BLE001 - any failure here is one failed check
        tap(False, "web: report pages", repr(e))
PY
