// Filters for the mcpconform fleet report's matrix. The rows are already in
// the page; this script only hides and shows them, by protocol version,
// by whether a target did not pass, and by a search of ids. It reads no
// report data as code and writes text only through textContent.
(function () {
  'use strict';
  var rows = Array.prototype.slice.call(document.querySelectorAll('#matrix > tbody > tr'));
  var filters = document.getElementById('filters');
  var boxes = Array.prototype.slice.call(filters.querySelectorAll('input[data-dim="version"]'));
  var problems = document.getElementById('problems');
  var search = document.getElementById('search');
  var status = document.getElementById('status');
  var empty = document.getElementById('empty');
  var texts = rows.map(function (row) {
    return (row.children[0].textContent + ' ' + row.children[1].textContent).toLowerCase();
  });

  function apply() {
    var on = Object.create(null);
    boxes.forEach(function (b) { if (b.checked) { on[b.value] = true; } });
    var q = search.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (row, i) {
      var ok = on[row.getAttribute('data-version')] === true &&
        (!problems.checked || row.getAttribute('data-problem') === 'true') &&
        (q === '' || texts[i].indexOf(q) >= 0);
      row.hidden = !ok;
      if (ok) { shown++; }
    });
    status.textContent = shown === rows.length ? 'Showing all ' + rows.length + ' rows'
      : 'Showing ' + shown + ' of ' + rows.length + ' rows';
    empty.hidden = shown !== 0;
  }

  // fromURL applies #version=2025-11-25,2025-06-18&problems=1&q=text; a
  // version not named is hidden only when some version is named.
  function fromURL() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ''));
    var v = p.get('version');
    var want = null;
    if (v !== null) {
      want = Object.create(null);
      v.split(',').forEach(function (x) { want[x] = true; });
    }
    boxes.forEach(function (b) { b.checked = want === null || want[b.value] === true; });
    problems.checked = p.get('problems') === '1';
    search.value = p.get('q') || '';
    apply();
  }

  function toURL() {
    var p = new URLSearchParams();
    var on = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
    if (on.length !== boxes.length) { p.set('version', on.join(',')); }
    if (problems.checked) { p.set('problems', '1'); }
    if (search.value !== '') { p.set('q', search.value); }
    var h = p.toString();
    try {
      history.replaceState(null, '', h === '' ? location.pathname + location.search : '#' + h);
    } catch (e) {
      // Some browsers refuse history changes on file: URLs; filtering still works.
    }
  }

  function changed() { apply(); toURL(); }
  boxes.forEach(function (b) { b.addEventListener('change', changed); });
  problems.addEventListener('change', changed);
  search.addEventListener('input', changed);
  window.addEventListener('hashchange', function () {
    if (location.hash.indexOf('=') >= 0) { fromURL(); }
  });
  filters.hidden = false;
  fromURL();
}());
