export default function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading">
      <div className="skeleton" />
      <div className="skeleton" />
    </div>
  );
}
