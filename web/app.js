// The web view's page script: one EventSource on /events, and each `state` event drawn into the
// page. Every value is set with textContent or as an SVG attribute computed here, never as
// markup, so text from the agent or the project shows as text. No library, no other origin.

const token = new URLSearchParams(location.search).get('token') ?? '';
const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function replaceChildren(parent, children) {
  parent.replaceChildren(...children);
}

function money(value) {
  if (value === undefined || value === null) return '—';
  return value < 0.01 && value > 0 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

function duration(seconds) {
  if (seconds === undefined || seconds === null) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

function of(value, max) {
  if (value === undefined || value === null) return '—';
  return max ? `${value} / ${max}` : String(value);
}

const GOOD = new Set(['completed', 'success', 'done', 'passed', 'merged', 'closed']);
const BAD = new Set(['halted', 'failed', 'error', 'open', 'needs-review', 'stopped']);

function pillClass(word) {
  const w = String(word ?? '').toLowerCase();
  if (GOOD.has(w)) return 'pill pill-ok';
  if (BAD.has(w) || w.includes('halt') || w.includes('fail')) return 'pill pill-bad';
  if (w.includes('wait') || w.includes('paused') || w.includes('limit')) return 'pill pill-warn';
  return 'pill';
}

function facts(list, rows) {
  const nodes = [];
  for (const [name, value] of rows) {
    if (value === undefined) continue;
    nodes.push(el('dt', name), el('dd', value));
  }
  replaceChildren(list, nodes);
}

function drawOverview(state) {
  $('project').textContent = state.project;
  document.title = `ralph · ${state.project}`;
  const loop = state.loop;
  const status = loop.gone ? 'stopped' : (loop.status ?? (state.ralphDirFound ? 'not started' : 'no project'));
  $('run-state').textContent = status;
  $('run-state').className = pillClass(status);
  const running = ['running', 'executing', 'paused'].includes(String(loop.status)) && !loop.gone;
  // Once a run has stopped, status.json's loop_count counts the loop that did not run: the last
  // loop run is the timeline's.
  const shown = running || loop.lastRun === undefined ? loop.count : loop.lastRun;
  $('loop-label').textContent = running || loop.lastRun === undefined ? 'Loop' : 'Last loop';
  $('loop-count').textContent = shown === undefined ? '—' : `#${shown}`;
  $('agent').textContent = loop.agent ? `agent: ${loop.agent}` : '';
  $('last-action').textContent = loop.lastAction ? `Last: ${loop.lastAction}` : '';
  const ended = loop.exitReason && !['running', 'executing'].includes(String(loop.status));
  const summary = $('summary');
  summary.hidden = !ended && !state.run;
  const lines = [];
  if (state.summary && !running) lines.push(...state.summary);
  else {
    if (ended) lines.push(`Stopped: ${loop.exitReason}`);
    if (state.run) lines.push(`Run ${state.run.status}, ${state.run.attempts} loop(s), ${state.run.gap}`);
    if (state.limits.costUsd !== undefined) lines.push(`Spent ${money(state.limits.costUsd)}`);
  }
  summary.textContent = lines.join('\n');
}

function drawPlan(state) {
  const plan = state.plan;
  const items = $('plan-items');
  if (!plan) {
    $('plan-count').textContent = '(no plan file)';
    replaceChildren(items, []);
    return;
  }
  $('plan-count').textContent = `${plan.done}/${plan.total} done${plan.optionalOpen ? `, ${plan.optionalOpen} optional open` : ''}`;
  $('plan-meter').style.width = plan.total ? `${Math.round((100 * plan.done) / plan.total)}%` : '0%';
  const note = $('plan-note');
  note.hidden = !plan.note;
  note.textContent = plan.note ?? '';
  const nodes = [];
  let section;
  for (const item of plan.items) {
    if (item.section && item.section !== section) {
      section = item.section;
      nodes.push(el('li', section, 'section'));
    }
    nodes.push(el('li', item.text, `${item.done ? 'item-done' : 'item-open'}${item.optional ? ' item-optional' : ''}`));
  }
  if (plan.cut) nodes.push(el('li', '… more items in the plan file', 'section'));
  if (plan.heldOpen.length > 0) {
    nodes.push(el('li', 'Held open by ralph (no evidence the work was done)', 'section'));
    for (const item of plan.heldOpen) nodes.push(el('li', `${item.text} — ${item.how}`, 'item-open item-held'));
  }
  replaceChildren(items, nodes);
}

function drawLimits(state) {
  const l = state.limits;
  let budget;
  if (l.maxCostUsd)
    budget = `${money(l.costUsd ?? 0)} of ${money(l.maxCostUsd)}${l.loopsLeftInBudget !== undefined ? ` (≈ ${l.loopsLeftInBudget} more loops at this rate)` : ''}`;
  else if (l.costUsd !== undefined) budget = `${money(l.costUsd)} (no budget set)`;
  facts($('limits-list'), [
    ['Calls this hour', of(l.callsThisHour, l.maxCallsPerHour)],
    ['Tokens this hour', l.tokensThisHour === undefined ? undefined : of(l.tokensThisHour, l.maxTokensPerHour || undefined)],
    ['Loops', l.loops === undefined ? undefined : of(l.loops, l.maxLoops || undefined)],
    ['Spend', budget],
    ['Calls of unknown cost', l.unknownCostCalls ? String(l.unknownCostCalls) : undefined],
    ['Usage limit', l.usageWaitUntil ? `waiting until ${new Date(l.usageWaitUntil).toLocaleTimeString()}` : undefined],
  ]);
}

function drawBreaker(state) {
  const b = state.breaker;
  facts(
    $('breaker-list'),
    b
      ? [
          ['State', b.state],
          ['Reason', b.reason || undefined],
          ['Loops without progress', b.noProgress === undefined ? undefined : String(b.noProgress)],
          ['Same error in a row', b.sameError === undefined ? undefined : String(b.sameError)],
          ['Permission denials', b.permissionDenials === undefined ? undefined : String(b.permissionDenials)],
        ]
      : [['State', 'not started']],
  );
}

function drawLive(state) {
  const pre = $('live-text');
  const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
  pre.textContent = state.live.length ? state.live.join('\n') : '(no output yet)';
  if (atBottom) pre.scrollTop = pre.scrollHeight;
  const a = state.agent;
  $('agent-status').textContent = a ? `${a.status}${a.workingSeconds ? ` · ${duration(a.workingSeconds)}` : ''}${a.lastTool ? ` · ${a.lastTool}` : ''}` : '';
}

function barChart(container, loops, value, format) {
  const width = 600;
  const height = 120;
  const pad = 16;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  const shown = loops.slice(-60);
  const values = shown.map(value).map((v) => (typeof v === 'number' && v > 0 ? v : 0));
  const max = Math.max(...values, 0);
  if (shown.length === 0 || max === 0) {
    const note = shown.length === 0 ? 'no loops yet' : `all ${format(0)}`;
    const empty = document.createElementNS(SVG, 'text');
    empty.setAttribute('x', String(width / 2));
    empty.setAttribute('y', String(height / 2));
    empty.setAttribute('text-anchor', 'middle');
    empty.setAttribute('class', 'axis');
    empty.textContent = note;
    svg.append(empty);
    container.replaceChildren(svg);
    return;
  }
  // At most 40 units a bar, so that a few loops do not look like a wall.
  const slot = Math.min(40, (width - pad) / shown.length);
  shown.forEach((loop, i) => {
    const h = ((height - pad) * values[i]) / max;
    const bar = document.createElementNS(SVG, 'rect');
    bar.setAttribute('x', String(pad + i * slot + slot * 0.1));
    bar.setAttribute('y', String(height - pad - h));
    bar.setAttribute('width', String(Math.max(1, slot * 0.8)));
    bar.setAttribute('height', String(h));
    bar.setAttribute('class', loop.success ? 'bar-ok' : 'bar-bad');
    const title = document.createElementNS(SVG, 'title');
    title.textContent = `Loop ${loop.loop}: ${format(values[i])}`;
    bar.append(title);
    svg.append(bar);
  });
  const label = document.createElementNS(SVG, 'text');
  label.setAttribute('x', '2');
  label.setAttribute('y', '10');
  label.setAttribute('class', 'axis');
  label.textContent = `max ${format(max)}`;
  svg.append(label);
  container.replaceChildren(svg);
}

function drawTimeline(state) {
  const loops = state.timeline;
  barChart($('cost-chart'), loops, (l) => l.costUsd, money);
  barChart($('time-chart'), loops, (l) => l.durationSeconds, duration);
  const rows = loops
    .slice(-50)
    .reverse()
    .map((loop) => {
      const tr = el('tr');
      tr.append(
        el('td', `#${loop.loop}`),
        el('td', loop.outcome ?? (loop.success ? 'ok' : 'failed'), loop.success ? 'ok' : 'bad'),
        el('td', duration(loop.durationSeconds)),
        el('td', loop.filesChanged ?? '—'),
        el('td', money(loop.costUsd)),
      );
      return tr;
    });
  replaceChildren($('loops-table').tBodies[0], rows);
}

function drawGate(state) {
  const gate = state.gate;
  const result = $('gate-result');
  if (!gate) {
    result.textContent = 'No test run yet.';
    result.className = 'muted';
    replaceChildren($('gate-failing'), []);
    return;
  }
  result.textContent = `Loop ${gate.loop}: ${gate.status} — ${gate.passed} passed, ${gate.failed} failed${gate.skipped ? `, ${gate.skipped} skipped` : ''}`;
  result.className = gate.status === 'passed' ? 'ok' : 'bad';
  replaceChildren(
    $('gate-failing'),
    gate.failing.map((name) => el('li', name, 'item-open')),
  );
}

function drawUnits(state) {
  $('units').hidden = state.units.length === 0;
  replaceChildren(
    $('units-table').tBodies[0],
    state.units.map((unit) => {
      const tr = el('tr');
      // A pull request (--parallel-land pr) is a link to it; the server sends http(s) URLs only.
      const note = el('td', unit.prUrl ? undefined : unit.reason, 'note');
      if (unit.prUrl) {
        const link = el('a', unit.prUrl);
        link.href = unit.prUrl;
        link.rel = 'noopener noreferrer';
        note.append(link);
      }
      tr.append(el('td', unit.slug), el('td', unit.state), el('td', unit.loops), el('td', money(unit.costUsd)), note);
      return tr;
    }),
  );
}

function drawQueue(state) {
  const q = state.queue;
  $('queue').hidden = !q;
  if (!q) return;
  facts($('queue-list'), [
    ['Done', `${q.completed} of ${q.total}`],
    ['Pending', String(q.pending)],
    ['Processing', q.processing ? String(q.processing) : undefined],
    ['Failed', q.failed ? String(q.failed) : undefined],
    ['Current', q.current],
  ]);
}

function drawNotes(state) {
  const notes = [...state.alerts, ...state.warnings];
  $('notes').hidden = notes.length === 0;
  replaceChildren(
    $('notes-list'),
    notes.map((text) => el('li', text, 'warn')),
  );
}

function render(state) {
  drawOverview(state);
  drawPlan(state);
  drawLimits(state);
  drawBreaker(state);
  drawLive(state);
  drawTimeline(state);
  drawGate(state);
  drawUnits(state);
  drawQueue(state);
  drawNotes(state);
  document.body.dataset.takenAt = String(state.takenAt);
}

function connect() {
  const connection = $('connection');
  const events = new EventSource(`/events?token=${encodeURIComponent(token)}`);
  events.addEventListener('open', () => {
    connection.textContent = 'live';
    connection.className = 'pill pill-ok';
  });
  events.addEventListener('error', () => {
    connection.textContent = 'reconnecting…';
    connection.className = 'pill pill-wait';
  });
  events.addEventListener('state', (event) => {
    try {
      render(JSON.parse(event.data));
    } catch (error) {
      connection.textContent = 'bad update';
      connection.className = 'pill pill-bad';
      console.error(error);
    }
  });
}

connect();
