// Runs inside the HTML report: draws the usage chart with the inlined uPlot from the embedded data.
(() => {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const palette = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#0891b2', '#db2777', '#65a30d', '#7c3aed'];
  const turns = data.baseline.map((_, i) => i + 1);
  const flat = (value) => turns.map(() => value);
  const budget = data.inputBudget;
  const columns = [turns, data.baseline];
  const series = [
    { label: 'request' },
    { label: '(no guard)', stroke: '#9ca3af', dash: [6, 4], width: 1.5, points: { show: false } },
  ];
  data.strategies.forEach((strategy, i) => {
    const compactedAt = new Set(strategy.compactionTurns.map((turn) => turn - 1));
    columns.push(strategy.sent);
    series.push({
      label: strategy.name,
      stroke: palette[i % palette.length],
      width: 2,
      spanGaps: false,
      points: {
        show: true,
        size: 7,
        filter: (_u, _seriesIndex, show) => (show ? [...compactedAt] : null),
      },
    });
  });
  const lines = [
    { label: 'window', value: data.window, stroke: '#dc2626', dash: [] },
    { label: 'input budget', value: budget, stroke: '#111827', dash: [8, 4] },
    { label: '80% warning', value: budget * 0.8, stroke: '#f59e0b', dash: [2, 4] },
    { label: '60% note', value: budget * 0.6, stroke: '#6b7280', dash: [2, 4] },
  ];
  for (const line of lines) {
    columns.push(flat(line.value));
    series.push({
      label: line.label,
      stroke: line.stroke,
      dash: line.dash,
      width: 1.5,
      points: { show: false },
    });
  }
  const element = document.getElementById('usage-chart');
  const chart = new uPlot(
    {
      title: `Tokens sent per request (window ${data.window.toLocaleString('en-US')})`,
      width: Math.max(640, element.clientWidth || 960),
      height: 420,
      scales: { x: { time: false }, y: { range: [0, Math.ceil(data.window * 1.3)] } },
      axes: [{ label: 'request' }, { label: 'tokens', size: 70 }],
      series,
    },
    columns,
    element,
  );
  window.ctxguardReport = {
    chart,
    data,
    strategySeries: data.strategies.map((strategy) => strategy.name),
    referenceLines: lines.map((line) => line.label),
  };
  document.body.dataset.chartReady = 'true';
})();
