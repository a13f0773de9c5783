// The worker's task queues. The service's own queue (config TEMPORAL_TASK_QUEUE, `checkout` by default) carries every
// workflow and the activities someone waits on (a shopper at init-payment, a merchant refunding); its background
// queue, beside it, carries what nobody waits on (emails, merchant events, the store cart emptied after the order),
// polled by a worker of its own with few slots, so a flash sale's emails queue up at Temporal instead of taking the
// CPU from shoppers who are waiting. Workflows derive it from the queue they run on (workflowInfo().taskQueue), so a
// test's unique queue gets a unique background queue too.
export const backgroundTaskQueue = (taskQueue: string): string => `${taskQueue}-background`;

/** Both queues of a service whose own queue is `taskQueue`. */
export const serviceTaskQueues = (taskQueue: string): string[] => [taskQueue, backgroundTaskQueue(taskQueue)];
