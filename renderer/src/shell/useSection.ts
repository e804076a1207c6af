import { useCallback, useEffect, useState } from 'react';
import { defaultSectionId, sections } from './sections';

function sectionFromPath(pathname: string): string {
  const id = pathname.replace(/^\/+/, '').split('/')[0];
  return sections.some((s) => s.id === id) ? id! : defaultSectionId;
}

/** The current section lives in the path (/servers, /about…), so reloads and links keep it. */
export function useSection(): [string, (id: string) => void] {
  const [section, setSection] = useState(() => sectionFromPath(window.location.pathname));
  useEffect(() => {
    const onPop = () => setSection(sectionFromPath(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((id: string) => {
    if (window.location.pathname !== `/${id}`) window.history.pushState(null, '', `/${id}`);
    setSection(id);
  }, []);
  return [section, navigate];
}
