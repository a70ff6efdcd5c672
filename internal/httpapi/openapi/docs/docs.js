// The reference page of /api/docs: reads /api/openapi.json and renders it,
// routes grouped by tag. Everything is built with DOM calls and textContent
// (never innerHTML), and styled by class only, so the page keeps the app's
// Content-Security-Policy (no inline script or style).
'use strict';

(function () {
  var METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
  var MAX_DEPTH = 8;
  var doc = null;

  function el(tag, className, children) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === '') return;
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }

  function code(text) { return el('code', null, [String(text)]); }

  function link(href, text, className) {
    var a = el('a', className, [text]);
    a.href = href;
    return a;
  }

  // Text with `code` spans.
  function inline(text) {
    var span = el('span');
    String(text).split('`').forEach(function (part, i) {
      if (part === '') return;
      span.appendChild(i % 2 === 1 ? code(part) : document.createTextNode(part));
    });
    return span;
  }

  // A description: paragraphs, "- " lists and `code`, nothing more.
  function prose(text, className) {
    var box = el('div', className || 'prose');
    if (!text) return box;
    String(text).replace(/\s+$/, '').split(/\n\s*\n/).forEach(function (block) {
      var lines = block.split('\n');
      if (/^\s*- /.test(lines[0])) {
        var list = el('ul');
        var item = null;
        lines.forEach(function (line) {
          if (/^\s*- /.test(line)) {
            item = line.replace(/^\s*- /, '');
            list.appendChild(el('li', null, [inline(item)]));
          } else if (list.lastChild) {
            list.lastChild.appendChild(document.createTextNode(' '));
            list.lastChild.appendChild(inline(line.trim()));
          }
        });
        box.appendChild(list);
      } else {
        box.appendChild(el('p', null, [inline(lines.map(function (l) { return l.trim(); }).join(' '))]));
      }
    });
    return box;
  }

  function slug(text) { return String(text).replace(/[^A-Za-z0-9_-]+/g, '-'); }

  // resolve follows a local $ref ("#/components/...") to its object.
  function resolve(obj) {
    var seen = 0;
    while (obj && obj.$ref && seen++ < 10) {
      var target = doc;
      obj.$ref.replace(/^#\//, '').split('/').forEach(function (part) {
        part = part.replace(/~1/g, '/').replace(/~0/g, '~');
        target = target ? target[part] : undefined;
      });
      obj = target;
    }
    return obj || {};
  }

  function refName(ref) { return ref.split('/').pop(); }

  function schemaLink(ref) {
    return link('#schema-' + slug(refName(ref)), refName(ref), 'ref');
  }

  function typeText(s) {
    if (s.const !== undefined) return 'always ' + JSON.stringify(s.const);
    var t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type || '');
    if (s.format) t += (t ? ' ' : '') + '(' + s.format + ')';
    return t;
  }

  function facts(s) {
    var out = [];
    if (s.enum) out.push('one of ' + s.enum.map(function (v) { return JSON.stringify(v); }).join(', '));
    if (s.minimum !== undefined) out.push('minimum ' + s.minimum);
    if (s.maximum !== undefined) out.push('maximum ' + s.maximum);
    if (s.minLength) out.push('at least ' + s.minLength + ' characters');
    if (s.maxLength !== undefined) out.push('at most ' + s.maxLength + ' characters');
    if (s.minItems) out.push('at least ' + s.minItems + ' items');
    if (s.maxItems !== undefined) out.push('at most ' + s.maxItems + ' items');
    if (s.pattern) out.push('pattern ' + s.pattern);
    if (s.default !== undefined) out.push('default ' + JSON.stringify(s.default));
    if (s.examples) out.push('e.g. ' + s.examples.map(function (v) { return JSON.stringify(v); }).join(', '));
    if (s.additionalProperties === false) out.push('no other members');
    return out;
  }

  // schemaView renders a schema: a link for a named schema, otherwise its
  // type, facts and members, nested.
  function schemaView(s, depth) {
    if (!s || typeof s !== 'object' || Object.keys(s).length === 0) return el('span', 'type', ['any']);
    if (s.$ref) return schemaLink(s.$ref);
    var box = el('div', 'schema');
    var head = el('div', 'schema-head');
    var t = typeText(s);
    if (t) head.appendChild(el('span', 'type', [t]));
    if (head.childNodes.length) box.appendChild(head);
    if (s.title) box.appendChild(el('div', 'schema-title', [s.title]));
    if (s.description && depth === 0) box.appendChild(prose(s.description, 'prose small'));
    var f = facts(s);
    if (f.length) box.appendChild(el('div', 'facts', [f.join('; ')]));
    if (depth >= MAX_DEPTH) return box;
    ['oneOf', 'anyOf', 'allOf'].forEach(function (key) {
      if (!s[key]) return;
      var label = { oneOf: 'One of:', anyOf: 'Any of:', allOf: 'All of:' }[key];
      var list = el('ul', 'alternatives');
      s[key].forEach(function (sub) { list.appendChild(el('li', null, [schemaView(sub, depth + 1)])); });
      box.appendChild(el('div', 'combo', [el('span', 'combo-label', [label]), list]));
    });
    if (s.items) box.appendChild(el('div', 'items', [el('span', 'combo-label', ['Items: ']), schemaView(s.items, depth + 1)]));
    if (s.properties) box.appendChild(members(s, depth));
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      box.appendChild(el('div', 'items', [el('span', 'combo-label', ['Each member: ']), schemaView(s.additionalProperties, depth + 1)]));
    }
    return box;
  }

  function members(s, depth) {
    var required = s.required || [];
    var list = el('ul', 'props');
    Object.keys(s.properties).forEach(function (name) {
      var p = s.properties[name] || {};
      var row = el('li', 'prop');
      var head = el('div', 'prop-head', [code(name)]);
      if (required.indexOf(name) >= 0) head.appendChild(el('span', 'req', ['required']));
      var nested = p.properties || p.items || p.oneOf || p.anyOf || p.allOf ||
        (p.additionalProperties && typeof p.additionalProperties === 'object');
      if (p.$ref) {
        head.appendChild(schemaLink(p.$ref));
      } else if (!nested) {
        var t = typeText(p);
        if (t) head.appendChild(el('span', 'type', [t]));
      }
      row.appendChild(head);
      if (p.description) row.appendChild(prose(p.description, 'prose small'));
      if (nested && !p.$ref) {
        row.appendChild(schemaView(Object.assign({}, p, { description: undefined }), depth + 1));
      } else if (!p.$ref) {
        var f = facts(p);
        if (f.length) row.appendChild(el('div', 'facts', [f.join('; ')]));
      }
      list.appendChild(row);
    });
    return list;
  }

  function contentView(content) {
    var box = el('div', 'content');
    Object.keys(content || {}).forEach(function (type) {
      var media = content[type] || {};
      var row = el('div', 'media', [el('div', 'media-type', [code(type)])]);
      row.appendChild(media.schema ? schemaView(media.schema, 0) : el('span', 'type', ['the file\'s bytes']));
      box.appendChild(row);
    });
    return box;
  }

  function schemeLabel(name) {
    var s = resolve(((doc.components || {}).securitySchemes || {})[name]);
    if (s.type === 'http' && s.scheme === 'bearer') return 'Bearer token';
    if (s.type === 'apiKey') return (s.in === 'cookie' ? 'cookie ' : s.in + ' parameter ') + s.name;
    return name;
  }

  function authView(op) {
    var security = op.security !== undefined ? op.security : (doc.security || []);
    if (security.length === 0) return el('span', 'auth public', ['Public: no token needed']);
    var options = security.map(function (req) {
      var names = Object.keys(req);
      return names.length ? names.map(schemeLabel).join(' and ') : 'none';
    });
    return el('span', 'auth', [options.join(', or ')]);
  }

  function paramsView(params) {
    var list = el('ul', 'props');
    params.forEach(function (raw) {
      var p = resolve(raw);
      var head = el('div', 'prop-head', [code(p.name), el('span', 'where', ['in ' + p.in])]);
      if (p.required) head.appendChild(el('span', 'req', ['required']));
      var s = p.schema || {};
      if (s.$ref) head.appendChild(schemaLink(s.$ref));
      else if (typeText(s)) head.appendChild(el('span', 'type', [typeText(s)]));
      var row = el('li', 'prop', [head]);
      if (p.description) row.appendChild(prose(p.description, 'prose small'));
      var f = s.$ref ? [] : facts(s);
      if (f.length) row.appendChild(el('div', 'facts', [f.join('; ')]));
      list.appendChild(row);
    });
    return list;
  }

  function responsesView(responses) {
    var list = el('div', 'responses');
    Object.keys(responses || {}).forEach(function (status) {
      var r = resolve(responses[status]);
      var cls = 'http-status s' + String(status).charAt(0);
      var row = el('div', 'response', [el('div', 'response-head', [el('span', cls, [status]), prose(r.description, 'prose inline')])]);
      var headers = Object.keys(r.headers || {});
      if (headers.length) {
        var hl = el('ul', 'props');
        headers.forEach(function (name) {
          var h = resolve(r.headers[name]);
          var head = el('div', 'prop-head', [code(name), el('span', 'where', ['header'])]);
          if (h.required) head.appendChild(el('span', 'req', ['always']));
          var item = el('li', 'prop', [head]);
          if (h.description) item.appendChild(prose(h.description, 'prose small'));
          var f = facts(h.schema || {});
          if (h.schema && h.schema.const !== undefined) f.unshift(typeText(h.schema));
          if (f.length) item.appendChild(el('div', 'facts', [f.join('; ')]));
          hl.appendChild(item);
        });
        row.appendChild(hl);
      }
      if (r.content) row.appendChild(contentView(r.content));
      list.appendChild(row);
    });
    return list;
  }

  function section(title, body) {
    return el('section', 'part', [el('h4', null, [title]), body]);
  }

  function operationView(path, method, op, pathItem) {
    var id = 'op-' + slug(op.operationId || method + path);
    var details = el('details', 'op');
    details.id = id;
    details.dataset.search = (method + ' ' + path + ' ' + (op.summary || '') + ' ' + (op.operationId || '')).toLowerCase();
    // The spaces between the parts are for screen readers and copying.
    var summary = el('summary', 'op-summary', [
      el('span', 'method m-' + method, [method.toUpperCase()]), ' ',
      el('code', 'path', [path]), ' ',
      el('span', 'op-title', [op.summary || '']),
    ]);
    details.appendChild(summary);
    var body = el('div', 'op-body');
    if (op.description) body.appendChild(prose(op.description));
    body.appendChild(section('Authentication', authView(op)));
    var params = (pathItem.parameters || []).concat(op.parameters || []);
    if (params.length) body.appendChild(section('Parameters', paramsView(params)));
    if (op.requestBody) {
      var rb = resolve(op.requestBody);
      var rbBox = el('div', null, [rb.required ? el('div', 'facts', ['required']) : null]);
      if (rb.description) rbBox.appendChild(prose(rb.description, 'prose small'));
      rbBox.appendChild(contentView(rb.content));
      body.appendChild(section('Request body', rbBox));
    }
    body.appendChild(section('Responses', responsesView(op.responses)));
    details.appendChild(body);
    return details;
  }

  function render() {
    var main = document.getElementById('main');
    var toc = document.getElementById('toc');
    var info = doc.info || {};
    document.getElementById('title').textContent = (info.title || 'API') + ' reference';
    document.title = (info.title || 'API') + ' reference';
    document.getElementById('version').textContent = 'Version ' + info.version + ', OpenAPI ' + doc.openapi + '.';
    main.textContent = '';

    var intro = el('section', 'intro', [prose(info.description)]);
    main.appendChild(intro);

    var filterLabel = el('label', 'filter-label', ['Filter routes']);
    filterLabel.htmlFor = 'filter';
    var filter = el('input', 'filter');
    filter.id = 'filter';
    filter.type = 'search';
    filter.placeholder = 'method, path or words';
    filter.autocomplete = 'off';
    var count = el('p', 'count');
    count.setAttribute('role', 'status');
    main.appendChild(el('div', 'filter-box', [filterLabel, filter, count]));

    // Group the operations by their first tag, in the order of doc.tags.
    var tags = (doc.tags || []).map(function (t) { return t.name; });
    var groups = {};
    Object.keys(doc.paths || {}).forEach(function (path) {
      var item = doc.paths[path];
      METHODS.forEach(function (method) {
        var op = item[method];
        if (!op) return;
        var tag = (op.tags && op.tags[0]) || 'Other';
        if (tags.indexOf(tag) < 0) tags.push(tag);
        (groups[tag] = groups[tag] || []).push(operationView(path, method, op, item));
      });
    });

    var tocList = el('ul');
    var total = 0;
    tags.forEach(function (tag) {
      var ops = groups[tag];
      if (!ops) return;
      total += ops.length;
      var meta = (doc.tags || []).filter(function (t) { return t.name === tag; })[0] || {};
      var sec = el('section', 'tag');
      sec.id = 'tag-' + slug(tag);
      sec.appendChild(el('h2', null, [tag]));
      if (meta.description) sec.appendChild(prose(meta.description));
      ops.forEach(function (op) { sec.appendChild(op); });
      main.appendChild(sec);
      tocList.appendChild(el('li', null, [link('#' + sec.id, tag + ' (' + ops.length + ')')]));
    });

    var schemes = ((doc.components || {}).securitySchemes) || {};
    var auth = el('section', 'tag');
    auth.id = 'authentication';
    auth.appendChild(el('h2', null, ['Authentication']));
    var authList = el('ul', 'props');
    Object.keys(schemes).forEach(function (name) {
      var s = schemes[name];
      var row = el('li', 'prop', [el('div', 'prop-head', [code(name), el('span', 'type', [schemeLabel(name)])])]);
      if (s.description) row.appendChild(prose(s.description, 'prose small'));
      authList.appendChild(row);
    });
    auth.appendChild(authList);
    main.appendChild(auth);
    tocList.appendChild(el('li', null, [link('#authentication', 'Authentication')]));

    var schemas = ((doc.components || {}).schemas) || {};
    var sch = el('section', 'tag');
    sch.id = 'schemas';
    sch.appendChild(el('h2', null, ['Schemas']));
    Object.keys(schemas).forEach(function (name) {
      var box = el('div', 'named-schema');
      box.id = 'schema-' + slug(name);
      box.tabIndex = -1;
      box.appendChild(el('h3', null, [name]));
      box.appendChild(schemaView(schemas[name], 0));
      sch.appendChild(box);
    });
    main.appendChild(sch);
    tocList.appendChild(el('li', null, [link('#schemas', 'Schemas')]));
    toc.appendChild(el('h2', 'toc-title', ['Contents']));
    toc.appendChild(tocList);

    function applyFilter() {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      main.querySelectorAll('details.op').forEach(function (op) {
        var hit = words.every(function (w) { return op.dataset.search.indexOf(w) >= 0; });
        op.hidden = !hit;
        if (hit) shown++;
      });
      main.querySelectorAll('section.tag').forEach(function (sec) {
        var ops = sec.querySelectorAll('details.op');
        if (ops.length) sec.hidden = sec.querySelectorAll('details.op:not([hidden])').length === 0;
      });
      count.textContent = words.length ? shown + ' of ' + total + ' routes' : total + ' routes';
    }
    filter.addEventListener('input', applyFilter);
    applyFilter();

    // A link to an operation or schema opens it.
    function openTarget() {
      var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (!target) return;
      var op = target.closest('details');
      if (op) op.open = true;
      target.scrollIntoView();
    }
    window.addEventListener('hashchange', openTarget);
    openTarget();
  }

  function fail(message) {
    var status = document.getElementById('status');
    if (!status) {
      status = el('p', null);
      status.id = 'status';
      status.setAttribute('role', 'status');
      document.getElementById('main').prepend(status);
    }
    status.textContent = message;
    status.className = 'status error';
  }

  document.addEventListener('DOMContentLoaded', function () {
    fetch('/api/openapi.json', { headers: { Accept: 'application/json' }, credentials: 'omit' })
      .then(function (res) {
        if (!res.ok) throw new Error('The API description could not be loaded (HTTP ' + res.status + ').');
        return res.json();
      })
      .then(function (json) {
        doc = json;
        render();
      })
      .catch(function (err) { fail(err.message || 'The API description could not be loaded.'); });
  });
})();
