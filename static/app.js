// app.js: progressive enhancement only: live run progress (EventSource) and copy buttons. Pages work without it.
(function () {
  'use strict';
  // Live steps of a running run: append each rendered step, reload when the run settles.
  var prog = document.getElementById('progress');
  var steps = document.getElementById('steps');
  if (prog && steps && window.EventSource) {
    var es = new EventSource(prog.getAttribute('data-events'));
    es.addEventListener('step', function (e) {
      var id = 'step-' + e.lastEventId;
      if (document.getElementById(id)) return;
      var t = document.createElement('template');
      t.innerHTML = e.data;          // server-rendered, escaped by the template layer
      steps.appendChild(t.content);
    });
    es.addEventListener('done', function () { es.close(); window.location.reload(); });
    es.addEventListener('timeout', function () { es.close(); });
    // without JS the page refreshes itself (noscript meta); with JS the stream replaces that
  }
  // The streamed start page: go to the finished run as soon as its id is known.
  var done = document.getElementById('stream-done');
  if (done && done.getAttribute('data-run')) {
    window.location.replace('/runs/' + done.getAttribute('data-run'));
  }
  // Skip link: to the page's first question box when it has one (the ask page), else to <main>.
  var skip = document.querySelector('a.skip-link');
  if (skip) {
    skip.addEventListener('click', function (e) {
      var to = document.querySelector('main textarea[data-ctrl-enter], main [autofocus]') || document.getElementById('main');
      if (!to) return;
      e.preventDefault();
      to.focus();
      if (to.scrollIntoView) to.scrollIntoView({ block: 'center' });
    });
  }
  // Ctrl+Enter (Cmd+Enter on a Mac) in a question box sends its form, with the form's own checks.
  Array.prototype.forEach.call(document.querySelectorAll('textarea[data-ctrl-enter]'), function (ta) {
    ta.addEventListener('keydown', function (e) {
      if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey) || !ta.form) return;
      e.preventDefault();
      if (ta.form.requestSubmit) ta.form.requestSubmit();
      else if (ta.form.reportValidity()) ta.form.submit();
    });
  });
  // Copy buttons: shown only when the clipboard is usable.
  var buttons = document.querySelectorAll('button.copy[data-copy]');
  Array.prototype.forEach.call(buttons, function (b) {
    if (!navigator.clipboard) return;
    b.hidden = false;
    b.addEventListener('click', function () {
      var src = document.getElementById(b.getAttribute('data-copy'));
      if (!src) return;
      var text = src.value !== undefined ? src.value : src.textContent;
      navigator.clipboard.writeText(text).then(function () {
        var old = b.textContent; b.textContent = '✓'; setTimeout(function () { b.textContent = old; }, 1200);
      });
    });
  });
  // --- result (issue 15): on a phone the SQL block starts folded so the answer and table come first
  var sqlBlock = document.getElementById('sql-block');
  if (sqlBlock && window.matchMedia && window.matchMedia('(max-width: 640px)').matches) sqlBlock.open = false;
})();
