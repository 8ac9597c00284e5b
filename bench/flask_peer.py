#!/usr/bin/python3
"""flask_peer.py: the history page as a Python peer would serve it (Flask + Jinja + psycopg2), for bench/load.sh.

Same work per request as app/pages/history.c behind app/http/auth.c: look the session cookie up
(sha256 of askql_sid in askql.sessions joined to users), run the same history query (the user's
runs, newest first, 25 + 1 rows), and render the same HTML (templates/header, history, footer
transliterated to Jinja, strings from conf/i18n).  Run under gunicorn with 4 sync workers:

    ASKQL_APP_DB="host=... dbname=askql user=askql_app" ASKQL_TOP=/path/to/askql \
        /usr/bin/python3 -m gunicorn -w 4 -b 127.0.0.1:PORT --chdir bench flask_peer:app
"""
import hashlib
import json
import os

import psycopg2
from flask import Flask, Response, request
from jinja2 import Environment

TOP = os.environ.get("ASKQL_TOP", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DSN = os.environ.get("ASKQL_APP_DB", "dbname=askql")
PER_PAGE = 25


def nest(flat):
    """conf/i18n/*.json is flat ("history.title"); templates read t.history.title."""
    out = {}
    for k, v in flat.items():
        sec, _, key = k.partition(".")
        out.setdefault(sec, {})[key] = v
    return out


I18N = {}
for lang in ("ko", "en"):
    with open(os.path.join(TOP, "conf", "i18n", lang + ".json"), encoding="utf-8") as f:
        I18N[lang] = nest(json.load(f))

PAGE = """<!doctype html>
<html lang="{{lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}} · askql</title>
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/">askql</a>
  {% if user %}
  <nav class="nav" aria-label="{{t.nav.menu}}">
    <a href="/">{{t.nav.ask}}</a>
    <a href="/history">{{t.nav.history}}</a>
    {% if user.admin %}<a href="/admin">{{t.nav.admin}}</a>{% endif %}
  </nav>
  {% endif %}
  <div class="tools">
    <form method="post" action="/lang" class="inline">
      <input type="hidden" name="csrf" value="{{csrf}}">
      <input type="hidden" name="next" value="{{path}}">
      {% if lang == 'ko' %}<button name="lang" value="en" class="link" lang="en">English</button>{% endif %}
      {% if lang == 'en' %}<button name="lang" value="ko" class="link" lang="ko">한국어</button>{% endif %}
    </form>
    {% if user %}
    <span class="who">{{user.name}} <small>({{user.role}})</small></span>
    <form method="post" action="/signout" class="inline">
      <input type="hidden" name="csrf" value="{{csrf}}">
      <button class="link">{{t.nav.sign_out}}</button>
    </form>
    {% endif %}
  </div>
</header>
<main>
<section class="card">
  <h1>{{t.history.title}}</h1>
  <form method="get" action="/history" class="filters">
    <label>{{t.history.search}} <input type="search" name="q" value="{{filter.q}}" maxlength="200" placeholder="{{t.history.search_placeholder}}"></label>
    <label>{{t.history.status}} <select name="status"><option value="">{{t.history.status_all}}</option>{% for s in statuses %}<option value="{{s.value}}"{% if s.selected %} selected{% endif %}>{{s.text}}</option>{% endfor %}</select></label>
    <label>{{t.history.date_from}} <input type="date" name="from" value="{{filter.from}}"></label>
    <label>{{t.history.date_to}} <input type="date" name="to" value="{{filter.to}}"></label>
    <label>{{t.history.table}} <input name="table" value="{{filter.table}}" maxlength="128"></label>
    <label class="check"><input type="checkbox" name="group" value="1"> {{t.web.group_fingerprint}}</label>
    {% if user.admin %}<label class="check"><input type="checkbox" name="all" value="1"> {{t.web.all_users}}</label>{% endif %}
    <button class="primary">{{t.history.filter}}</button>
  </form>
</section>
<section class="card">
  {% if not runs %}<p class="muted">{{t.history.empty}}</p>{% endif %}
  <ul class="history">
  {% for r in runs %}
    <li class="hrun">
      <div class="row between">
        <a class="q" href="/runs/{{r.id}}">{{r.question}}</a>
        <span class="badge badge-{{r.status}}">{{r.status_text}}</span>
      </div>
      <p class="muted small">#{{r.id}} · {{r.created}} · {{r.owner}}{% if r.tables %} · {{r.tables}}{% endif %}{% if r.row_count %} · {{r.row_count}} {{t.web.rows}}{% endif %}{% if r.verified %} · ✓ {{t.history.verified}}{% endif %}</p>
      {% if r.sql %}<pre class="sql small" id="sql-{{r.id}}">{{r.sql}}</pre>{% endif %}
      <div class="row actions">
        <a class="button" href="/runs/{{r.id}}">{{t.history.open}}</a>
        <form method="post" action="/runs/{{r.id}}/action" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button name="action" value="rerun">{{t.history.rerun}}</button></form>
        {% if r.sql %}<button class="copy" type="button" data-copy="sql-{{r.id}}" hidden>{{t.history.copy_sql}}</button>{% endif %}
        {% if r.status == 'ok' and not r.verified %}<form method="post" action="/runs/{{r.id}}/action" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="next" value="/history"><button name="action" value="verify">{{t.history.verify}}</button></form>{% endif %}
        <form method="post" action="/runs/{{r.id}}/action" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button name="action" value="delete" class="danger">{{t.history.delete}}</button></form>
      </div>
    </li>
  {% endfor %}
  </ul>
  <nav class="pager">{% if page > 1 %}<a href="/history?page={{page - 1}}">← {{t.history.prev}}</a>{% endif %} <span>{{page}}</span> {% if more %}<a href="/history?page={{page + 1}}">{{t.history.next}} →</a>{% endif %}</nav>
</section>
</main>
<footer class="foot"><small>askql · {{t.app.footer}}</small></footer>
</body>
</html>
"""

env = Environment(autoescape=True)
TEMPLATE = env.from_string(PAGE)
STATUSES = ("ok", "error", "unanswerable", "paused", "running", "stopped")
app = Flask(__name__)
_conn = None


def db():
    """One connection per gunicorn worker process, reopened when it broke."""
    global _conn
    if _conn is None or _conn.closed:
        _conn = psycopg2.connect(DSN)
        _conn.autocommit = True
    return _conn


@app.route("/history")
def history():
    sid = request.cookies.get("askql_sid", "")
    if len(sid) != 64:
        return Response("sign in", status=303, headers={"Location": "/signin"})
    cur = db().cursor()
    cur.execute("SELECT u.id, u.name, u.role, u.lang, s.csrf FROM askql.sessions s "
                "JOIN askql.users u ON u.id = s.user_id "
                "WHERE s.id = %s AND s.expires_at > now() AND NOT u.disabled",
                (hashlib.sha256(sid.encode()).hexdigest(),))
    row = cur.fetchone()
    if not row:
        return Response("sign in", status=303, headers={"Location": "/signin"})
    uid, name, role, ulang, csrf = row
    lang = "en" if ulang == "en" else "ko"
    t = I18N[lang]
    page = max(1, int(request.args.get("page", "1") or 1))
    cur.execute("SELECT r.id, r.question, r.status, r.sql, r.verified, "
                "to_char(r.created_at, 'YYYY-MM-DD HH24:MI') AS created, array_to_string(r.tables, ', ') AS tables, "
                "u.name AS owner, r.row_count, 1 AS n FROM askql.runs r LEFT JOIN askql.users u ON u.id = r.user_id "
                "WHERE r.kind <> 'critique' AND r.user_id = %s ORDER BY r.created_at DESC LIMIT %s OFFSET %s",
                (uid, PER_PAGE + 1, (page - 1) * PER_PAGE))
    rows = cur.fetchall()
    runs = [{"id": r[0], "question": r[1], "status": r[2], "sql": r[3], "verified": r[4], "created": r[5],
             "tables": r[6], "owner": r[7], "row_count": r[8],
             "status_text": t.get("run", {}).get("status." + r[2], r[2])} for r in rows[:PER_PAGE]]
    html = TEMPLATE.render(
        lang=lang, t=t, title=t["history"]["title"], path=request.path, csrf=csrf,
        user={"name": name, "role": role, "admin": role == "admin"},
        filter={"q": "", "from": "", "to": "", "table": ""},
        statuses=[{"value": s, "text": t.get("run", {}).get("status." + s, s), "selected": False} for s in STATUSES],
        runs=runs, page=page, more=len(rows) > PER_PAGE)
    return Response(html, content_type="text/html; charset=utf-8",
                    headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})
