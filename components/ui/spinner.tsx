// A loading indicator that says what is loading, for sighted and screen-reader users alike.
export function Spinner({ label }: { label: string }) {
  return (
    <p role="status" className="flex items-center gap-2 py-2 text-sm text-slate-600">
      <svg aria-hidden="true" className="h-4 w-4 animate-spin" viewBox="0 0 24 24" fill="none">
        <circle cx="12" cy="12" r="10" stroke="currentColor" strokeOpacity="0.25" strokeWidth="4" />
        <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
      </svg>
      <span>{label}</span>
    </p>
  );
}
