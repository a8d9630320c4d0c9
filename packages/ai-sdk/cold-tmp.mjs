const which = process.argv[2];
const t0 = performance.now();
if (which === 'ai') {
  await import('ai');
  console.log(`import('ai') ${(performance.now() - t0).toFixed(0)} ms`);
} else {
  const { createContextGuard } = await import('ctxguard');
  const t1 = performance.now();
  const guard = createContextGuard({ provider: 'openai', model: 'gpt-4o' });
  await guard.prepare({ conversationId: 'c', messages: [{ role: 'user', content: 'Hello there, how are you?' }] });
  const t2 = performance.now();
  console.log(`import('ctxguard') ${(t1 - t0).toFixed(0)} ms + first prepare ${(t2 - t1).toFixed(0)} ms = ${(t2 - t0).toFixed(0)} ms`);
  await guard.close();
}
