// Filters for the mcpconform HTML report. The rows are already in the page;
// this script only hides and shows them. It reads no report data as code and
// writes text only through textContent.
(function () {
  'use strict';
  var dims = ['verdict', 'level', 'area', 'version'];
  var rows = Array.prototype.slice.call(document.querySelectorAll('#results > details.result'));
  var filters = document.getElementById('filters');
  var search = document.getElementById('search');
  var status = document.getElementById('status');
  var empty = document.getElementById('empty');
  var texts = null;

  function boxes(dim) {
    return Array.prototype.slice.call(filters.querySelectorAll('input[data-dim="' + dim + '"]'));
  }

  function selected(dim) {
    var set = Object.create(null);
    boxes(dim).forEach(function (b) { if (b.checked) { set[b.value] = true; } });
    return set;
  }

  function apply() {
    if (texts === null) {
      texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    }
    var sel = {};
    dims.forEach(function (d) { sel[d] = selected(d); });
    var q = search.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (row, i) {
      var ok = dims.every(function (d) { return sel[d][row.getAttribute('data-' + d)] === true; }) &&
        (q === '' || texts[i].indexOf(q) >= 0);
      row.hidden = !ok;
      if (ok) { shown++; }
    });
    status.textContent = shown === rows.length ? 'Showing all ' + rows.length + ' results'
      : 'Showing ' + shown + ' of ' + rows.length + ' results';
    empty.hidden = shown !== 0;
  }

  function params() {
    var raw = location.hash.replace(/^#/, '');
    if (raw.indexOf('=') < 0) { raw = location.search.replace(/^\?/, ''); }
    return new URLSearchParams(raw);
  }

  // fromURL applies #verdict=fail,warn&level=MUST&area=resources&version=2025-11-25&q=text.
  // A dimension that is not named shows every value.
  function fromURL() {
    var p = params();
    dims.forEach(function (d) {
      var v = p.get(d);
      var want = null;
      if (v !== null) {
        want = Object.create(null);
        v.split(',').forEach(function (x) { want[x] = true; });
      }
      boxes(d).forEach(function (b) { b.checked = want === null || want[b.value] === true; });
    });
    search.value = p.get('q') || '';
    apply();
    var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (target !== null && target.classList.contains('result')) { target.open = true; }
  }

  function toURL() {
    var p = new URLSearchParams();
    dims.forEach(function (d) {
      var all = boxes(d);
      var on = all.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
      if (on.length !== all.length) { p.set(d, on.join(',')); }
    });
    if (search.value !== '') { p.set('q', search.value); }
    var h = p.toString();
    try {
      history.replaceState(null, '', h === '' ? location.pathname + location.search : '#' + h);
    } catch (e) {
      // Some browsers refuse history changes on file: URLs; filtering still works.
    }
  }

  function setOpen(open) {
    rows.forEach(function (row) { if (!row.hidden) { row.open = open; } });
  }

  filters.addEventListener('change', function () { apply(); toURL(); });
  search.addEventListener('input', function () { apply(); toURL(); });
  document.getElementById('expand').addEventListener('click', function () { setOpen(true); });
  document.getElementById('collapse').addEventListener('click', function () { setOpen(false); });
  document.getElementById('reset').addEventListener('click', function () {
    dims.forEach(function (d) { boxes(d).forEach(function (b) { b.checked = true; }); });
    search.value = '';
    apply();
    toURL();
  });
  window.addEventListener('hashchange', fromURL);

  filters.hidden = false;
  fromURL();
  document.documentElement.setAttribute('data-ready', 'true');
}());
