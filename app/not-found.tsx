import Link from "next/link";

export default function NotFound() {
  return (
    <div className="py-16 text-center">
      <h1 className="text-2xl font-semibold">Page not found</h1>
      <p className="mt-2 text-slate-600">There is no page at this address.</p>
      <Link href="/" className="mt-4 inline-block font-medium text-brand-700 underline">
        Go to the start page
      </Link>
    </div>
  );
}
