/** What a page shows while its data loads. */
export function PageLoading() {
  return (
    <div aria-busy="true" aria-label="Loading">
      <div className="skeleton" />
      <div className="skeleton" />
    </div>
  );
}
