#!/usr/bin/env bash
# 45_two_instants.sh: issue 26, seventh session: two values of one measurement at two instants the question names (compared, or their change, "from T1 to T2" being the later minus the earlier; named without a comparison: declined), and the intensive care unit said in words (the stay measured when it is named inside a hospital visit), a hyphenated word holding a visit word, a phrase ending in a function word that is no part of a stored name, and the names tied at the last time, on a small schema written here with names of our own (docs/schema-model.md, "Two instants").
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin two_instants

# Hospital stays, ICU episodes inside them, and vital signs charted hourly.
psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE hosp_stay (stay_no int PRIMARY KEY, person_no int NOT NULL, admitted timestamp NOT NULL, discharged timestamp);
COMMENT ON TABLE hosp_stay IS 'hospital stays';
CREATE TABLE icu_episode (episode_no int PRIMARY KEY, stay_no int NOT NULL REFERENCES hosp_stay, person_no int NOT NULL,
  went_in timestamp NOT NULL, came_out timestamp);
COMMENT ON TABLE icu_episode IS 'ICU episodes';
CREATE TABLE vital_kind (kind_id int PRIMARY KEY, kind_name text NOT NULL);
CREATE TABLE vital (vital_id int PRIMARY KEY, episode_no int NOT NULL REFERENCES icu_episode, kind_id int NOT NULL REFERENCES vital_kind,
  taken_at timestamp NOT NULL, reading numeric NOT NULL);
INSERT INTO hosp_stay SELECT g, 1 + g % 4, timestamp '2025-01-01' + g * interval '20 days',
  timestamp '2025-01-11' + g * interval '20 days' FROM generate_series(1, 12) g;
INSERT INTO icu_episode SELECT g, g, 1 + g % 4, timestamp '2025-01-02 06:00' + g * interval '20 days',
  timestamp '2025-01-04 18:30' + g * interval '20 days' + (g % 3) * interval '7 hours' FROM generate_series(1, 12) g;
INSERT INTO vital_kind VALUES (1, 'pulse'), (2, 'respiratory rate'), (3, 'pre-admission weight'), (4, 'changes in skin colour');
INSERT INTO vital SELECT g, 1 + g % 12, 1 + g % 2, timestamp '2025-01-22 00:00' + g * interval '1 hour', 60 + (g * 7) % 31
  FROM generate_series(1, 400) g;
-- person 3's last charting (episode 10, 2025-07-10 09:00): two kinds at one time
INSERT INTO vital VALUES (1001, 10, 3, '2025-07-10 08:00', 71), (1002, 10, 1, '2025-07-10 09:00', 88),
  (1003, 10, 2, '2025-07-10 09:00', 19), (1004, 2, 3, '2025-02-11 07:00', 70.5);
SQL

# person 3 (episodes 2, 6, 10): episode 2 runs 2025-02-11 06:00 to 2025-02-13 20:30
cat >"$TMP/q.jsonl" <<'J'
{"question": "Is the pulse of person 3 measured at 2025-02-11 12:00:00 greater than it is measured at 2025-02-12 12:00:00?", "gold_sql": "SELECT (SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE e.person_no = 3 AND v.kind_id = 1 AND v.taken_at = '2025-02-11 12:00') > (SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE e.person_no = 3 AND v.kind_id = 1 AND v.taken_at = '2025-02-12 12:00')", "rule": "two instants compared: the value at the first against the value at the second"}
{"question": "How much of a difference is there in person 3's pulse measured at 2025-02-12 12:00:00 compared to the value measured at 2025-02-11 12:00:00?", "gold_sql": "SELECT (SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE e.person_no = 3 AND v.kind_id = 1 AND v.taken_at = '2025-02-12 12:00') - (SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE e.person_no = 3 AND v.kind_id = 1 AND v.taken_at = '2025-02-11 12:00')", "rule": "the difference of the values at two instants: the first minus the second"}
{"question": "How much did person 3's pulse change from 2025-02-11 12:00:00 to 2025-02-12 12:00:00?", "gold_sql": "SELECT (SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE e.person_no = 3 AND v.kind_id = 1 AND v.taken_at = '2025-02-12 12:00') - (SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE e.person_no = 3 AND v.kind_id = 1 AND v.taken_at = '2025-02-11 12:00')", "rule": "a change from T1 to T2: the later value minus the earlier"}
{"question": "What was the pulse of person 3 at 2025-02-11 12:00:00 and 2025-02-12 12:00:00?", "expect": "declined", "gold_sql": "SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE e.person_no = 3 AND v.kind_id = 1 AND v.taken_at IN ('2025-02-11 12:00', '2025-02-12 12:00')", "rule": "two instants named without a comparison: declined, never the first alone"}
{"question": "How many persons were in the intensive care unit in 2025?", "gold_sql": "SELECT count(DISTINCT person_no) FROM icu_episode WHERE went_in >= '2025-01-01' AND went_in < '2026-01-01'", "rule": "the intensive care unit said in words is the table ICU names"}
{"question": "How long was the first hospital stay of person 3 in the ICU?", "gold_sql": "SELECT extract(epoch FROM came_out - went_in) / 86400 FROM icu_episode WHERE person_no = 3 ORDER BY went_in LIMIT 1", "rule": "the ICU named inside a hospital stay: the ICU stay is the one measured"}
{"question": "Can you calculate the duration in days of person 3's first stay in the intensive care unit?", "gold_sql": "SELECT extract(epoch FROM came_out - went_in) / 86400 FROM icu_episode WHERE person_no = 3 ORDER BY went_in LIMIT 1", "rule": "the first stay in the intensive care unit, in words"}
{"question": "What was the maximum pre-admission weight of person 3?", "gold_sql": "SELECT max(reading) FROM vital v JOIN icu_episode e USING (episode_no) WHERE e.person_no = 3 AND v.kind_id = 3", "rule": "pre-admission, one hyphenated word, names no admission"}
{"question": "What are person 3's changes in pulse last measured on the first hospital stay compared to the first value measured on the first hospital stay?", "gold_sql": "SELECT (SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE v.kind_id = 1 AND e.stay_no = (SELECT min(stay_no) FROM hosp_stay WHERE person_no = 3) ORDER BY taken_at DESC LIMIT 1) - (SELECT reading FROM vital v JOIN icu_episode e USING (episode_no) WHERE v.kind_id = 1 AND e.stay_no = (SELECT min(stay_no) FROM hosp_stay WHERE person_no = 3) ORDER BY taken_at LIMIT 1)", "rule": "'changes in' is no part of a stored name ('changes in skin colour')"}
{"question": "Which vital kind did person 3 have for the last occurrence?", "gold_sql": "SELECT k.kind_name, v.taken_at FROM vital v JOIN icu_episode e USING (episode_no) JOIN vital_kind k USING (kind_id) WHERE e.person_no = 3 AND v.taken_at = '2025-07-10 09:00'", "rule": "which X for the last occurrence: every name at that last time, with the time"}
J
own_schema_eval "$TMP/q.jsonl"
[ "$n" -eq 10 ] || nok "ten questions were scored (got $n)"
out=$(own_schema_plan "How much did person 3's pulse change from 2025-02-11 12:00:00 to 2025-02-12 12:00:00?")
grep -q "the value at 2025-02-12 12:00:00 minus the value at 2025-02-11 12:00:00" <<<"$out" &&
	ok "the explanation names both instants, the later first" || nok "the explanation names both instants" "$out"
echo "1..$n"
