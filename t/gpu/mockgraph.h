/* mockgraph.h — mockcuda.c's CUDA graphs (the GPU child's, gpu_child_graph.c).
 * While a capture is on, work queued on a stream of it (the origin, and
 * every stream that waited for an event recorded in the capture) stays in
 * its queue, and cudaStreamEndCapture moves it into a graph; a launch
 * appends a copy of it to the queues (its waits moved to the events' new
 * places), so a replay runs interleaved on the lanes as the original would.
 * Strict: the legacy stream, a stream outside the capture, a
 * synchronisation or an allocation while capturing invalidates the capture
 * (a child that queued work outside its graph would not replay it), as does
 * a stream not joined back into the origin at the end. Included once, at
 * the end of mockcuda.c, whose queues, events and capture state it uses. */
#ifndef DG_T_GPU_MOCKGRAPH_H
#define DG_T_GPU_MOCKGRAPH_H

/* Graphs: the ops of each stream, waits at positions relative to the graph. */
typedef struct { mock_op *v[MOCK_STREAMS]; size_t n[MOCK_STREAMS]; } mock_graph;

static void op_copy(mock_op *d, const mock_op *s)
{
  *d = *s;
  if (!s->launch) return;
  size_t at = 0;
  for (int i = 0; i < s->k->nparams; i++) at += (s->k->sizes[i] + 7) & ~(size_t)7;
  d->vals = malloc(at ? at : 1);
  memcpy(d->vals, s->vals, at);
  for (int i = 0; i < s->k->nparams; i++) d->argv[i] = d->vals + ((unsigned char *)s->argv[i] - s->vals);
}

static void graph_free(mock_graph *g)
{
  if (!g) return;
  for (int q = 0; q < MOCK_STREAMS; q++) {
    for (size_t i = 0; i < g->n[q]; i++)
      if (g->v[q][i].launch) free(g->v[q][i].vals);
    free(g->v[q]);
  }
  free(g);
}

static void graph_counts(void)
{
  const char *p = getenv("DG_MOCK_GRAPH_FILE");
  FILE *f = p && *p ? fopen(p, "w") : NULL;
  if (!f) return;
  fprintf(f, "instantiated %ld launched %ld\n", graphs_made, graphs_launched);
  fclose(f);
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
  intptr_t q = (intptr_t)s;
  if (cap.on || q <= 0 || q >= MOCK_STREAMS) RET(cudaErrorInvalidValue);
  memset(&cap, 0, sizeof cap);
  cap.on = true, cap.origin = (int)q, cap.joined[q] = true, cap.start[q] = queue[q].n;
  RET(cudaSuccess);
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *out)
{
  *out = NULL;
  if (!cap.on || (intptr_t)s != cap.origin) RET(cudaErrorIllegalState);
  /* every stream that joined, joined back: a wait somewhere on its last op */
  for (int q = 1; q < MOCK_STREAMS && !cap.invalid; q++) {
    if (!cap.joined[q] || q == cap.origin || queue[q].n == cap.start[q]) continue;
    bool back = false;
    for (int r = 1; r < MOCK_STREAMS && !back; r++)
      for (size_t i = cap.joined[r] ? cap.start[r] : queue[r].n; i < queue[r].n && !back; i++)
        back = queue[r].v[i].wait && queue[r].v[i].ev.q == q && queue[r].v[i].ev.pos == queue[q].n;
    if (!back) cap.invalid = true;
  }
  mock_graph *g = cap.invalid ? NULL : calloc(1, sizeof *g);
  for (int q = 1; q < MOCK_STREAMS; q++) {
    if (!cap.joined[q]) continue;
    for (size_t i = cap.start[q]; i < queue[q].n; i++) {
      mock_op *o = &queue[q].v[i];
      if (!g) {
        if (o->launch) free(o->vals);
        continue;
      }
      if (o->wait) o->ev.pos -= o->ev.q > 0 ? cap.start[o->ev.q] : 0;   /* relative to the graph */
      g->v[q] = realloc(g->v[q], (g->n[q] + 1) * sizeof *g->v[q]);
      g->v[q][g->n[q]++] = *o;   /* (its argument values move with it) */
    }
    queue[q].n = cap.start[q];
  }
  bool invalid = cap.invalid;
  memset(&cap, 0, sizeof cap);
  if (invalid) RET(cudaErrorStreamCaptureInvalidated);
  *out = (cudaGraph_t)g;
  RET(cudaSuccess);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
  const mock_graph *g = (const mock_graph *)graph;
  mock_graph *x = calloc(1, sizeof *x);
  for (int q = 0; q < MOCK_STREAMS; q++) {
    x->n[q] = g->n[q];
    x->v[q] = g->n[q] ? malloc(g->n[q] * sizeof *x->v[q]) : NULL;
    for (size_t i = 0; i < g->n[q]; i++) op_copy(&x->v[q][i], &g->v[q][i]);
  }
  *exec = (cudaGraphExec_t)x;
  graphs_made++;
  graph_counts();
  RET(cudaSuccess);
}

/* The graph's ops appended to their streams' queues (after everything on
 * the legacy stream: a launch there), each wait at its event's new place. */
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s)
{
  if (cap.on) {
    cap.invalid = true;
    RET(cudaErrorStreamCaptureUnsupported);
  }
  if (sticky) RET(sticky);
  const mock_graph *g = (const mock_graph *)exec;
  if ((intptr_t)s <= 0) flush();
  size_t base[MOCK_STREAMS];
  for (int q = 0; q < MOCK_STREAMS; q++) base[q] = queue[q].n;
  for (int q = 1; q < MOCK_STREAMS; q++)
    for (size_t i = 0; i < g->n[q]; i++) {
      mock_op *o = enqueue((cudaStream_t)(intptr_t)q);
      op_copy(o, &g->v[q][i]);
      if (o->wait && o->ev.q > 0) o->ev.pos += base[o->ev.q], o->ev.epoch = epoch;
    }
  graphs_launched++;
  graph_counts();
  RET(cudaSuccess);
}

cudaError_t cudaGraphDestroy(cudaGraph_t g) { graph_free((mock_graph *)g); RET(cudaSuccess); }
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) { graph_free((mock_graph *)x); RET(cudaSuccess); }

#endif
