import { it } from 'vitest';
import { describeQuickStart } from '../../../test/support/quick-start.ts';

describeQuickStart(it, import.meta.url, { claims: 1 });
