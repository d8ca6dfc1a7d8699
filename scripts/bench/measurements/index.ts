// Every measurement, in table order. Adding one = a new file here + one line below.
import type { Measurement } from '../core/measurement.js';
import { lifecycle } from './lifecycle/index.js';

export const MEASUREMENTS: readonly Measurement[] = [lifecycle];
