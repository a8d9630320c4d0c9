import { test } from 'vitest';
import { MemoryPersistence } from '../src/index.js';
import { describePersistence } from '../src/testing.js';

describePersistence(test, () => new MemoryPersistence(), { name: 'MemoryPersistence: ' });
