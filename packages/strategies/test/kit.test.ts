// Every built-in strategy runs the kit it ships for strategy authors.
import { test } from 'vitest';
import {
  CacheFriendlyStrategy,
  EngineStrategy,
  LayeredStrategy,
  LayoutStrategy,
  PipelineStrategy,
  RecompactStrategy,
  RelevanceStrategy,
  TruncateStrategy,
} from '../src/index.js';
import { describeStrategy } from '../src/testing.js';

describeStrategy(test, 'TruncateStrategy', () => new TruncateStrategy());
// Four levels: the guard's escalation to a higher level runs here.
describeStrategy(test, 'LayeredStrategy', () => new LayeredStrategy());
describeStrategy(test, 'RelevanceStrategy', () => new RelevanceStrategy());
describeStrategy(test, 'CacheFriendlyStrategy', () => new CacheFriendlyStrategy());
describeStrategy(test, 'PipelineStrategy', () => new PipelineStrategy());
describeStrategy(test, 'EngineStrategy', () => new EngineStrategy());
describeStrategy(test, 'LayoutStrategy', () => new LayoutStrategy());
describeStrategy(test, 'RecompactStrategy', () => new RecompactStrategy());
