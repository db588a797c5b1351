import { describe, expect, it } from 'vitest';
import {
  findDependencyCycle,
  formatCycle,
  nextReadyItem,
  orderByPriority,
  parseIssueDependencies,
  priorityFromLabels,
  type OrderedItem,
} from '../../../lib/queue/queue-order.js';

const item = (n: number, priority = '', dependencies: number[] = [], status = 'pending'): OrderedItem => ({
  id: `github-${n}`,
  issue_number: n,
  priority,
  dependencies,
  status,
});

describe('priorityFromLabels', () => {
  it.each([
    [['bug', 'P2', 'p1'], 'P1'],
    [['priority: P3', 'P5'], 'P3'],
    [['Priority:p0'], 'P0'],
    [['P10', 'p', 'priority-1', 'xp1'], ''],
    [[], ''],
  ])('%j → %j', (labels, expected) => {
    expect(priorityFromLabels(labels)).toBe(expected);
  });
});

describe('parseIssueDependencies', () => {
  it('finds depends on / blocked by / requires, any case, an optional colon; sorted, once each', () => {
    const body = 'Depends on #12.\nBLOCKED BY: #3, and requires  #12\nrequires#7\nsee #99, fixes #4';
    expect(parseIssueDependencies(body)).toEqual([3, 7, 12]);
  });

  it('ignores numbers that are not dependencies', () => {
    expect(parseIssueDependencies('Related to #5; depends on issue 6; notrequires #8')).toEqual([]);
  });
});

describe('orderByPriority', () => {
  it('puts P0 first, unlabelled last, and keeps the order of addition within a priority', () => {
    const items = [item(1), item(2, 'P1'), item(3, 'P0'), item(4, 'P1'), item(5)];
    expect(orderByPriority(items).map((i) => i.issue_number)).toEqual([3, 2, 4, 1, 5]);
  });
});

describe('nextReadyItem', () => {
  it('takes the most urgent pending item whose dependencies are completed', () => {
    const items = [item(10, 'P1'), item(11, 'P0', [12]), item(12, 'P1', [10])];
    expect(nextReadyItem(items)?.issue_number).toBe(10);
    const afterTen = [item(10, 'P1', [], 'completed'), items[1]!, items[2]!];
    expect(nextReadyItem(afterTen)?.issue_number).toBe(12);
    const afterTwelve = [afterTen[0]!, items[1]!, item(12, 'P1', [10], 'completed')];
    expect(nextReadyItem(afterTwelve)?.issue_number).toBe(11);
  });

  it('counts a dependency outside the queue as satisfied, and a failed one as not', () => {
    expect(nextReadyItem([item(1, '', [404])])?.issue_number).toBe(1);
    expect(nextReadyItem([item(1, 'P0', [], 'failed'), item(2, 'P0', [1])])).toBeUndefined();
  });

  it('returns nothing when no item is pending', () => {
    expect(nextReadyItem([item(1, '', [], 'completed'), item(2, '', [], 'processing')])).toBeUndefined();
  });
});

describe('findDependencyCycle', () => {
  it('finds a cycle and names the issues around it', () => {
    const cycle = findDependencyCycle([item(1, '', [2]), item(2, '', [3]), item(3, '', [1]), item(4)]);
    expect(cycle).toEqual([1, 2, 3, 1]);
    expect(formatCycle(cycle!)).toBe('#1 → #2 → #3 → #1');
  });

  it('finds an issue that depends on itself', () => {
    expect(findDependencyCycle([item(5, '', [5])])).toEqual([5, 5]);
  });

  it('accepts chains, diamonds and dependencies outside the queue', () => {
    expect(findDependencyCycle([item(1, '', [2, 3]), item(2, '', [4]), item(3, '', [4]), item(4, '', [99])])).toBeUndefined();
  });
});
